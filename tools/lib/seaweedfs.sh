# Sourced by tools that need an S3 server: starts SeaweedFS (`weed mini`) on free loopback ports with one bucket and
# one identity, under `timeout` (it stops by itself), and sets WEED_ENDPOINT, WEED_FILER, WEED_BUCKET, WEED_PID and
# the AWS_* variables a publisher signs with. `weed_stop` stops it. Every listener binds and advertises 127.0.0.1.
weed_free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

weed_start() {  # weed_start <folder> [lifetime seconds]
  local dir=$1 lifetime=${2:-1800}
  mkdir -p "$dir/data"
  WEED_BUCKET=iap
  cat > "$dir/s3.json" <<JSON
{"identities":[{"name":"publisher","credentials":[{"accessKey":"iapcontent-tool","secretKey":"iapcontent-tool-secret"}],"actions":["Admin","Read","Write","List","Tagging"]}]}
JSON
  local ports=() p
  while [ ${#ports[@]} -lt 10 ]; do p=$(weed_free_port); [[ " ${ports[*]} " == *" $p "* ]] || ports+=("$p"); done
  timeout --signal=KILL "$lifetime" weed mini -dir="$dir/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 -master.telemetry=false \
    -admin.ui=false -webdav=false -s3.port.iceberg=0 -s3.port.lance=0 -s3.config="$dir/s3.json" -bucket="$WEED_BUCKET" \
    -s3.localSocket="$dir/s3.sock" -filer.localSocket="$dir/filer.sock" \
    -master.port="${ports[0]}" -master.port.grpc="${ports[1]}" -volume.port="${ports[2]}" -volume.port.grpc="${ports[3]}" \
    -filer.port="${ports[4]}" -filer.port.grpc="${ports[5]}" -s3.port="${ports[6]}" -s3.port.grpc="${ports[7]}" \
    -admin.port="${ports[8]}" -admin.port.grpc="${ports[9]}" >"$dir/weed.log" 2>&1 &
  WEED_PID=$!
  WEED_ENDPOINT="http://127.0.0.1:${ports[6]}"
  WEED_FILER="http://127.0.0.1:${ports[4]}"
  export AWS_ACCESS_KEY_ID=iapcontent-tool AWS_SECRET_ACCESS_KEY=iapcontent-tool-secret AWS_REGION=us-east-1
  unset AWS_SESSION_TOKEN AWS_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3
  for _ in $(seq 600); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$WEED_FILER/buckets/$WEED_BUCKET/")" = 200 ] && return 0
    sleep 0.1
  done
  echo "SeaweedFS did not start; its log: $dir/weed.log" >&2
  return 1
}

weed_stop() {
  [ -n "${WEED_PID:-}" ] || return 0
  for child in $(cat "/proc/$WEED_PID/task/$WEED_PID/children" 2>/dev/null); do kill -KILL "$child" 2>/dev/null || true; done
  kill -KILL "$WEED_PID" 2>/dev/null || true
  wait "$WEED_PID" 2>/dev/null || true
  WEED_PID=""
}
