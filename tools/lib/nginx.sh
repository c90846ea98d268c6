# Sourced by tools/bench, tools/soak and tools/demo: start/stop a private nginx on 127.0.0.1.
#   nginx_start <root-dir> <work-dir>   → sets NGINX_PORT, NGINX_PID_FILE, NGINX_ACCESS_LOG
#   nginx_stop
# The access log records bytes sent per request ($bytes_sent) so scripts can count re-fetched bytes.
#
# Optional, for real-network rigs (tools/bench-wan); unset, nothing changes:
#   NGINX_LIMIT_RATE=4m    `limit_rate` per request (a per-connection cap for long transfers)
#   NGINX_MAX_RANGES=1     `max_ranges` (1: a server without multi-range; it answers 200 to them)
#   NGINX_LIFETIME=600     the nginx stops by itself after this many seconds (a watchdog; nginx_stop ends it too)
#   NGINX_HTTP2=1          HTTP/2 (`listen … http2`): with NGINX_TLS_CERT over TLS (ALPN), else cleartext only,
#                          with prior knowledge
#   NGINX_TLS_CERT=… NGINX_TLS_KEY=…  serve https with this PEM certificate and key
#   NGINX_SERVER_EXTRA='…'  more directives for the server block (e.g. a `location` that answers 429)
#   nginx_cdn_start <origin-port> <work-dir>  → a "CDN stand-in" on 127.0.0.1 in front of an origin nginx:
#       proxy_cache + slice 1m (cache key $uri$slice_range); sets NGINX_CDN_PORT, NGINX_CDN_PID_FILE,
#       NGINX_CDN_ACCESS_LOG (fields: uri status bytes_sent range cache-status); honours the three variables above
#       at the edge. Its work folder is <work-dir>/cdn (use a different <work-dir> per instance).
#   nginx_cdn_stop
#   nginx_stop_all   stops every nginx (and watchdog) started through this file by this shell

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

nginx_start() {
  local root="$1" work="$2"
  mkdir -p "$work/nginx"
  NGINX_PORT=$(free_port)
  NGINX_PID_FILE="$work/nginx/nginx.pid"
  NGINX_ACCESS_LOG="$work/nginx/access.log"
  cat > "$work/nginx/nginx.conf" <<CONF
$(_nginx_conf_head "$work/nginx" "$NGINX_PID_FILE" "bytes '\$request_uri \$status \$bytes_sent \$http_range'")
  types { application/json json; application/zstd zst; }
$(_nginx_conf_transfer)
  server {
    listen 127.0.0.1:$NGINX_PORT$(_nginx_listen_flags);
    root $root;
    etag on;
    access_log $NGINX_ACCESS_LOG bytes;$(_nginx_extra_directives)
  }
}
CONF
  /usr/sbin/nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" 2>"$work/nginx/start.err" || { cat "$work/nginx/start.err" >&2; return 1; }
  _nginx_started "$NGINX_PID_FILE"
  NGINX_WATCHDOG_PID=$_NGINX_LAST_WATCHDOG
  _nginx_wait "$NGINX_PORT" "nginx"
}

# The head of a config both kinds of server share: user, one worker, pid, error log, access log format <format>,
# temp folders in <dir>. Workers of a root master run as nobody and could not read our 0700 temp folders: keep them
# as the caller.
_nginx_conf_head() {
  local dir="$1" pid_file="$2" format="$3"
  [ "$(id -u)" -eq 0 ] && echo "user root root;" || echo ""
  cat <<HEAD
worker_processes 1;
pid $pid_file;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  log_format $format;
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi;
  scgi_temp_path $dir/scgi;
HEAD
}

# How both kinds of server send bodies.
_nginx_conf_transfer() {
  cat <<TRANSFER
  default_type application/octet-stream;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
TRANSFER
}

# Waits up to 5 s for the server on <port> to answer; <what> names it in the error.
_nginx_wait() {
  for _ in $(seq 1 50); do
    local how=(http); [ "${NGINX_HTTP2:-0}" = 1 ] && how=(http --http2-prior-knowledge)
    [ -n "${NGINX_TLS_CERT:-}" ] && how=(https -k)
    curl -s "${how[@]:1}" -o /dev/null "${how[0]}://127.0.0.1:$1/" && return 0
    sleep 0.1
  done
  echo "$2 did not start" >&2; return 1
}

nginx_stop() {
  [ -n "${NGINX_PID_FILE:-}" ] && [ -f "$NGINX_PID_FILE" ] && kill "$(cat "$NGINX_PID_FILE")" 2>/dev/null || true
  [ -n "${NGINX_WATCHDOG_PID:-}" ] && kill "$NGINX_WATCHDOG_PID" 2>/dev/null || true
}

# --- additions for real-network rigs (all optional; see the top of this file) ---

_NGINX_STARTED=()       # "<pid-file> <watchdog-pid>" of every nginx started here
_NGINX_LAST_WATCHDOG=""

# Directives for a server block from NGINX_LIMIT_RATE / NGINX_MAX_RANGES (nothing when unset).
# With NGINX_HTTP2=1 the server speaks HTTP/2 only (cleartext, prior knowledge: `curl --http2-prior-knowledge`).
_nginx_listen_flags() {
  [ -n "${NGINX_TLS_CERT:-}" ] && printf ' ssl'
  [ "${NGINX_HTTP2:-0}" = 1 ] && printf ' http2'
  return 0
}

_nginx_extra_directives() {
  [ -n "${NGINX_TLS_CERT:-}" ] && printf '\n    ssl_certificate %s;\n    ssl_certificate_key %s;' "$NGINX_TLS_CERT" "$NGINX_TLS_KEY"
  [ -n "${NGINX_LIMIT_RATE:-}" ] && printf '\n    limit_rate %s;' "$NGINX_LIMIT_RATE"
  [ -n "${NGINX_MAX_RANGES:-}" ] && printf '\n    max_ranges %s;' "$NGINX_MAX_RANGES"
  [ -n "${NGINX_SERVER_EXTRA:-}" ] && printf '\n    %s' "$NGINX_SERVER_EXTRA"
  return 0
}

# _nginx_started <pid-file>: remembers the instance; with NGINX_LIFETIME, starts a watchdog that stops it then.
_nginx_started() {
  local pid_file=$1
  _NGINX_LAST_WATCHDOG=""
  for _ in $(seq 1 50); do [ -s "$pid_file" ] && break; sleep 0.02; done
  if [ -n "${NGINX_LIFETIME:-}" ] && [ -s "$pid_file" ]; then
    local master; master=$(cat "$pid_file")
    # Only this master, by its id; the watchdog's output goes nowhere so it never holds a caller's pipe open.
    # Killing the watchdog ends its sleep too.
    ( trap 'kill $s 2>/dev/null; exit 0' TERM; sleep "$NGINX_LIFETIME" & s=$!; wait $s && kill "$master" 2>/dev/null ) \
      </dev/null >/dev/null 2>&1 &
    _NGINX_LAST_WATCHDOG=$!
  fi
  _NGINX_STARTED+=("$pid_file ${_NGINX_LAST_WATCHDOG:--}")
}

# nginx_cdn_start <origin-port> <work-dir>: an nginx with proxy_cache + slice in front of 127.0.0.1:<origin-port>,
# as a CDN edge does it: each client range becomes 1 MiB-aligned slice requests to the origin, cached per slice.
nginx_cdn_start() {
  local origin="$1" work="$2"
  local dir="$work/cdn"
  mkdir -p "$dir/cache"
  NGINX_CDN_PORT=$(free_port)
  NGINX_CDN_PID_FILE="$dir/nginx.pid"
  NGINX_CDN_ACCESS_LOG="$dir/access.log"
  cat > "$dir/nginx.conf" <<CONF
$(_nginx_conf_head "$dir" "$NGINX_CDN_PID_FILE" "cdn '\$request_uri \$status \$bytes_sent \$http_range \$upstream_cache_status'")
$(_nginx_conf_transfer)
  proxy_cache_path $dir/cache levels=1:2 keys_zone=cdn:16m max_size=8g inactive=1d use_temp_path=off;
  upstream origin { server 127.0.0.1:$origin; keepalive 16; }
  server {
    listen 127.0.0.1:$NGINX_CDN_PORT$(_nginx_listen_flags);
    access_log $NGINX_CDN_ACCESS_LOG cdn;$(_nginx_extra_directives)
    location / {
      slice 1m;
      proxy_cache cdn;
      proxy_cache_key \$uri\$slice_range;
      proxy_set_header Range \$slice_range;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_cache_valid 200 206 1d;
      proxy_pass http://origin;
    }
  }
}
CONF
  /usr/sbin/nginx -c "$dir/nginx.conf" -p "$dir" 2>"$dir/start.err" || { cat "$dir/start.err" >&2; return 1; }
  _nginx_started "$NGINX_CDN_PID_FILE"
  NGINX_CDN_WATCHDOG_PID=$_NGINX_LAST_WATCHDOG
  _nginx_wait "$NGINX_CDN_PORT" "nginx (CDN stand-in)"
}

nginx_cdn_stop() {
  [ -n "${NGINX_CDN_PID_FILE:-}" ] && [ -f "$NGINX_CDN_PID_FILE" ] && kill "$(cat "$NGINX_CDN_PID_FILE")" 2>/dev/null || true
  [ -n "${NGINX_CDN_WATCHDOG_PID:-}" ] && kill "$NGINX_CDN_WATCHDOG_PID" 2>/dev/null || true
}

nginx_stop_all() {
  local entry pid_file watchdog
  for entry in "${_NGINX_STARTED[@]}"; do
    pid_file=${entry% *} watchdog=${entry##* }
    [ -f "$pid_file" ] && kill "$(cat "$pid_file")" 2>/dev/null || true
    [ "$watchdog" != "-" ] && kill "$watchdog" 2>/dev/null || true
  done
  return 0
}
