# Sourced by bench/run.sh and bench/ab.sh: the nginx configurations they start.
# nginx_conf DIR WORKERS SERVER_BLOCK: a config rooted in DIR (pid, logs, temp files) with the
# given http-level blocks; no access log, keep-alive without a request limit.
nginx_conf() {
  local dir=$1 workers=$2 body=$3
  cat > "$dir/nginx.conf" <<CONF
daemon off; worker_processes $workers; pid $dir/nginx.pid; error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off; client_body_temp_path $dir; proxy_temp_path $dir;
  fastcgi_temp_path $dir; uwsgi_temp_path $dir; scgi_temp_path $dir;
  keepalive_requests 1000000;
$body
}
CONF
}
# upstream_conf DIR PORT: the fast "OpenPush", answering 201 {"notification_id":"msg_x"}.
upstream_conf() {
  nginx_conf "$1" 1 "  server { listen 127.0.0.1:$2; location / { default_type application/json; return 201 '{\"notification_id\":\"msg_x\"}'; } }"
}
