# Sourced by tools/bench, tools/soak and tools/demo: start/stop a private nginx on 127.0.0.1.
#   nginx_start <root-dir> <work-dir>   → sets NGINX_PORT, NGINX_PID_FILE, NGINX_ACCESS_LOG
#   nginx_stop
# The access log records bytes sent per request ($bytes_sent) so scripts can count re-fetched bytes.

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

nginx_start() {
  local root="$1" work="$2"
  mkdir -p "$work/nginx"
  NGINX_PORT=$(free_port)
  NGINX_PID_FILE="$work/nginx/nginx.pid"
  NGINX_ACCESS_LOG="$work/nginx/access.log"
  # Workers of a root master run as nobody and could not read our 0700 temp folders: keep them as the caller.
  local user_line=""
  [ "$(id -u)" -eq 0 ] && user_line="user root root;"
  cat > "$work/nginx/nginx.conf" <<CONF
$user_line
worker_processes 1;
pid $NGINX_PID_FILE;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  log_format bytes '\$request_uri \$status \$bytes_sent \$http_range';
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  types { application/json json; application/zstd zst; }
  default_type application/octet-stream;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $root;
    etag on;
    access_log $NGINX_ACCESS_LOG bytes;
  }
}
CONF
  /usr/sbin/nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" 2>"$work/nginx/start.err" || { cat "$work/nginx/start.err" >&2; return 1; }
  for _ in $(seq 1 50); do
    curl -s -o /dev/null "http://127.0.0.1:$NGINX_PORT/" && return 0
    sleep 0.1
  done
  echo "nginx did not start" >&2; return 1
}

nginx_stop() {
  [ -n "${NGINX_PID_FILE:-}" ] && [ -f "$NGINX_PID_FILE" ] && kill "$(cat "$NGINX_PID_FILE")" 2>/dev/null || true
}
