#!/usr/bin/env bash
# Teeworlds test servers and the twnet-parser cross-check environment.
#
#   .ci/setup-teeworlds.sh start   install (apt: teeworlds-server, ddnet-server;
#                                  pip: twnet-parser in target/tw-venv), start
#                                  both servers, write target/tw-servers/servers.env
#   .ci/setup-teeworlds.sh stop    stop the servers by PID
#
# The vanilla 0.7.5 server listens on 127.0.0.1:18303 (`bindaddr`). DDNet 16.4
# aborts on `bindaddr 127.0.0.1`, so it runs in a private network namespace
# (`unshare -n`) with only loopback up, on 127.0.0.1:18304 inside it; clients
# reach it with `nsenter --net=/proc/PID/ns/net`. Both use `sv_register 0`.
# If 18303 is taken here, the next free of 18313, 18323, ... is used.
# The vanilla server also has its external console (econ, TCP, on
# 127.0.0.1:18403 or the next free port) with a random password, and its own
# HOME, so the demos it records (`record NAME` over econ) land in a known
# directory.
# servers.env records `vanilla=ADDR`, `ddnet=ADDR`, `ddnet_netns_pid=PID`,
# `vanilla_econ=ADDR`, `vanilla_econ_password=PW` and `vanilla_demos=DIR`
# for crates/cli/tests/tw_live.rs. Idempotent; prints what it does.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
state="$root/target/tw-servers"
vanilla_port=18303
ddnet_port=18304
econ_port=18403

log() { echo "[setup-teeworlds] $*"; }

stop() {
    for f in "$state"/*.pid; do
        [ -e "$f" ] || continue
        pid=$(cat "$f")
        if kill -0 "$pid" 2>/dev/null; then
            log "stopping $(basename "$f" .pid) (pid $pid)"
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$pid" 2>/dev/null || true
        fi
        rm -f "$f"
    done
    rm -f "$state/servers.env"
}

install() {
    if [ -x /usr/games/teeworlds-server ] && [ -x /usr/games/DDNet-Server ]; then
        log "teeworlds-server and ddnet-server already installed"
    else
        log "apt-get install teeworlds-server ddnet-server"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq teeworlds-server ddnet-server >/dev/null
    fi
    if [ -x "$root/target/tw-venv/bin/python" ] && "$root/target/tw-venv/bin/python" -c 'import twnet_parser' 2>/dev/null; then
        log "twnet-parser already installed in target/tw-venv"
    else
        log "pip install twnet-parser==0.16.1 into target/tw-venv"
        python3 -m venv "$root/target/tw-venv"
        "$root/target/tw-venv/bin/pip" install -q twnet-parser==0.16.1
    fi
}

# wait_udp NETNS_PID PORT: waits until something listens on UDP PORT (inside
# the namespace of NETNS_PID, or here when it is empty).
wait_udp() {
    local ns=$1 port=$2
    for _ in $(seq 1 100); do
        if [ -n "$ns" ]; then
            nsenter --net="/proc/$ns/ns/net" ss -uln 2>/dev/null | grep -q ":$port " && return 0
        else
            ss -uln 2>/dev/null | grep -q ":$port " && return 0
        fi
        sleep 0.1
    done
    return 1
}

# free_port PORT: PORT, or the next of PORT+10, PORT+20, ... that no UDP
# socket here uses (a server left over from another checkout keeps its port).
free_port() {
    local port=$1
    while ss -uln 2>/dev/null | grep -q ":$port "; do port=$((port + 10)); done
    echo "$port"
}

# free_tcp_port PORT: PORT, or the next of PORT+10, PORT+20, ... that no TCP
# socket here listens on.
free_tcp_port() {
    local port=$1
    while ss -tln 2>/dev/null | grep -q ":$port "; do port=$((port + 10)); done
    echo "$port"
}

start() {
    install
    stop
    mkdir -p "$state/vanilla/home" "$state/ddnet"
    vanilla_port=$(free_port "$vanilla_port")
    econ_port=$(free_tcp_port "$econ_port")
    econ_password=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')

    log "starting teeworlds-server 0.7.5 on 127.0.0.1:$vanilla_port"
    (cd "$state/vanilla" && HOME="$state/vanilla/home" exec /usr/games/teeworlds-server \
        "bindaddr 127.0.0.1; sv_port $vanilla_port; sv_register 0; sv_name gamewire-ci; sv_map dm1; sv_spamprotection 0; ec_bindaddr 127.0.0.1; ec_port $econ_port; ec_password $econ_password" \
        >"$state/vanilla/server.log" 2>&1 </dev/null) &
    echo $! >"$state/vanilla.pid"
    wait_udp "" "$vanilla_port" || { log "teeworlds-server did not come up:"; tail -20 "$state/vanilla/server.log"; exit 1; }

    log "starting DDNet-Server 16.4 in a private network namespace on 127.0.0.1:$ddnet_port"
    (cd "$state/ddnet" && exec unshare -n sh -c \
        "ip link set lo up && exec /usr/games/DDNet-Server 'sv_port $ddnet_port; sv_register 0; sv_name gamewire-ci-ddnet; sv_spamprotection 0'" \
        >"$state/ddnet/server.log" 2>&1 </dev/null) &
    echo $! >"$state/ddnet.pid"
    # The PID is the server itself (sh and unshare exec into it).
    ddnet_pid=$(cat "$state/ddnet.pid")
    wait_udp "$ddnet_pid" "$ddnet_port" || { log "DDNet-Server did not come up:"; tail -20 "$state/ddnet/server.log"; exit 1; }

    cat >"$state/servers.env" <<EOF
vanilla=127.0.0.1:$vanilla_port
ddnet=127.0.0.1:$ddnet_port
ddnet_netns_pid=$ddnet_pid
vanilla_econ=127.0.0.1:$econ_port
vanilla_econ_password=$econ_password
vanilla_demos=$state/vanilla/home/.local/share/teeworlds/demos
EOF
    log "servers up: $(tr '\n' ' ' <"$state/servers.env")"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
