#!/usr/bin/env bash
# Imports the benchmark model into a local Ollama: make bench-model runs it.
#
#  1. skips, saying why, when the pinned Ollama release is absent
#     ($OLLAMA_GZ, from ../shared/third_party);
#  2. unpacks it to build/llm/ollama (checked against its sha256);
#  3. writes build/llm/llama3.2-1b-shape.gguf with cmd/benchmodel unless it
#     is there: random weights in Llama 3.2 1B Instruct's shape, the real
#     tokenizer;
#  4. starts `ollama serve` on a free port, with its models in
#     build/llm/models, and creates $MODEL from the GGUF quantized to
#     Q4_K_M, with the chat template llama32.gotmpl, unless `ollama list`
#     has it; then asks it one short chat to show that it answers;
#  5. stops the server, however the script ends.
#
# The server's log is build/llm/serve.log. To use the model afterwards:
#   OLLAMA_HOST=127.0.0.1:11500 OLLAMA_MODELS=$PWD/build/llm/models build/llm/ollama serve
set -euo pipefail

cd "$(dirname "$0")/../.."
GO=${GO:-go}
OLLAMA_GZ=${OLLAMA_GZ:-../shared/third_party/ollama-v0.17.4-linux-amd64.gz}
OLLAMA_SHA256=${OLLAMA_SHA256:-658a04e228b300776f07c11d403d0d583766cca954e482ec46e0bd838643d480}
LLM_DIR=${LLM_DIR:-build/llm}
GGUF=${GGUF:-$LLM_DIR/llama3.2-1b-shape.gguf}
MODEL=${MODEL:-hark-bench-1b}
QUANTIZE=${QUANTIZE:-q4_K_M}
TEMPLATE=internal/benchmodel/llama32.gotmpl
OLLAMA=$LLM_DIR/ollama
LOG=$LLM_DIR/serve.log

if [[ ! -f $OLLAMA_GZ ]]; then
	echo "bench-model skipped: $OLLAMA_GZ is absent (Ollama v0.17.4 for linux/amd64; see ../shared/third_party/README.md)"
	exit 0
fi
mkdir -p "$LLM_DIR"

if [[ ! -x $OLLAMA || $OLLAMA_GZ -nt $OLLAMA ]]; then
	echo "$OLLAMA_SHA256  $OLLAMA_GZ" | sha256sum -c --quiet || {
		echo "$OLLAMA_GZ is not the pinned Ollama v0.17.4 (sha256 differs)" >&2
		exit 1
	}
	gunzip -c "$OLLAMA_GZ" >"$OLLAMA.tmp"
	chmod +x "$OLLAMA.tmp"
	mv "$OLLAMA.tmp" "$OLLAMA"
	echo "unpacked $OLLAMA ($("$OLLAMA" --version 2>/dev/null | tail -1))"
fi

if [[ ! -f $GGUF ]]; then
	start=$SECONDS
	"$GO" run ./internal/benchmodel/cmd/benchmodel -o "$GGUF"
	echo "generated in $((SECONDS - start)) s"
fi

export OLLAMA_MODELS=$PWD/$LLM_DIR/models
export OLLAMA_NOHISTORY=1
server=
stop_server() {
	if [[ -n $server ]]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
		server=
	fi
}
trap stop_server EXIT
trap 'exit 130' INT TERM

# Port 0: the kernel picks a free port, and the server's log says which.
OLLAMA_HOST=127.0.0.1:0 "$OLLAMA" serve >"$LOG" 2>&1 &
server=$!
host=
for _ in $(seq 300); do
	host=$(grep -o -m1 'Listening on 127\.0\.0\.1:[0-9]*' "$LOG" | cut -d' ' -f3 || true)
	[[ -n $host ]] && break
	kill -0 "$server" 2>/dev/null || { echo "ollama serve exited; its log:" >&2; cat "$LOG" >&2; exit 1; }
	sleep 0.1
done
[[ -n $host ]] || { echo "ollama serve did not start in 30 s; see $LOG" >&2; exit 1; }
export OLLAMA_HOST=$host
echo "ollama serve on $host (log: $LOG)"

if "$OLLAMA" list | awk 'NR > 1 { print $1 }' | grep -qx "$MODEL:latest"; then
	echo "$MODEL is already imported"
else
	if grep -q '"""' "$TEMPLATE"; then
		echo "$TEMPLATE holds \"\"\", which ends a Modelfile's TEMPLATE" >&2
		exit 1
	fi
	modelfile=$LLM_DIR/Modelfile
	{
		echo "FROM $PWD/$GGUF"
		printf 'TEMPLATE """%s"""\n' "$(cat "$TEMPLATE")"
		echo 'PARAMETER stop "<|start_header_id|>"'
		echo 'PARAMETER stop "<|end_header_id|>"'
		echo 'PARAMETER stop "<|eot_id|>"'
	} >"$modelfile"
	start=$SECONDS
	"$OLLAMA" create "$MODEL" --quantize "$QUANTIZE" -f "$modelfile"
	echo "imported $MODEL in $((SECONDS - start)) s"
fi
"$OLLAMA" list | awk -v m="$MODEL:latest" 'NR == 1 || $1 == m'

# One short chat: the answer is nonsense, but it must come.
reply=$(curl -sS --max-time 600 "http://$host/api/chat" -d '{"model": "'"$MODEL"'", "stream": false,
	"messages": [{"role": "user", "content": "Say hello."}], "options": {"num_predict": 8, "seed": 1}}')
if [[ $reply != *'"done":true'* ]]; then
	echo "$MODEL did not answer a chat: $reply" >&2
	exit 1
fi
echo "$MODEL answers a chat: $(grep -o '"prompt_eval_count":[0-9]*,"prompt_eval_duration":[0-9]*,"eval_count":[0-9]*,"eval_duration":[0-9]*' <<<"$reply")"
