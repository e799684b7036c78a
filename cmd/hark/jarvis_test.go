package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkbox/hark/internal/sharedtest"
	"github.com/harkbox/hark/pipeline/whisper"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// jarvisRun is what the driver reports of one interaction.
type jarvisRun struct {
	Result struct {
		Success     bool   `json:"success"`
		Message     string `json:"message"`
		AudioPlayed bool   `json:"audio_played"`
	} `json:"result"`
	Requests  [][]any `json:"requests"`
	Questions []struct {
		Question      string   `json:"question"`
		ParameterName string   `json:"parameter_name"`
		ToolCallID    string   `json:"tool_call_id"`
		Options       []string `json:"options"`
	} `json:"questions"`
	AudioBytes int              `json:"audio_bytes"`
	Timers     []map[string]any `json:"timers"`
	Commands   []string         `json:"commands"`
}

// jarvisNodeSource is the real node's code and the two libraries it
// imports, or a skip saying what is missing. The sources come from the
// public repositories (alexberardi/jarvis-node-setup, jarvis-command-sdk,
// jarvis-log-client) and are never copied into this one.
func jarvisNodeSource(t *testing.T) []string {
	env := []string{}
	for _, k := range []string{"JARVIS_NODE_SRC", "JARVIS_SDK_SRC", "JARVIS_LOG_CLIENT_SRC"} {
		v := os.Getenv(k)
		if v == "" {
			t.Skipf("%s is not set: the real Jarvis node's code is needed (make jarvis-node-test says how)", k)
		}
		env = append(env, k+"="+v)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	probe := exec.Command("python3", "-c", "import sys; sys.path.append('/usr/lib/python3/dist-packages'); import pydantic, requests, dotenv, httpx, sqlalchemy; assert pydantic.VERSION >= '2'")
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("python3 lacks what the node imports (pydantic 2, requests, python-dotenv; Debian's python3-httpx and python3-sqlalchemy): %v\n%s", err, out)
	}
	return env
}

// TestRealJarvisNode: the real Jarvis node's own code, configured with the
// center's URL and its key and nothing else, on a UTC host: a timer set
// through a tool call, a plain question, a question answered by the user
// and a failing tool whose error reaches the model, through both
// /voice/command/stream (a new interaction) and /voice/command (a
// follow-up).
func TestRealJarvisNode(t *testing.T) {
	nodeEnv := jarvisNodeSource(t)
	srv, m := modelServer(t)
	env := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()})
	dir := t.TempDir()
	// The shared tiny model, for the center's speech-to-text when this
	// build has whisper.cpp (-tags whisper).
	model := filepath.Join(sharedtest.Dir(), "models", "for-tests-ggml-tiny.en.bin")
	cfg := writeConfig(t, fmt.Sprintf("[reply]\nplanner = false\nrouter = \"keyword\"\n[whisper]\nmodel = %q\n", model))
	const id, key = "7e1f0a9c-2b4d-4c8e-9f3a-5d6b7c8e9f01", "stock-node-key-0123456789"
	if code, out, errOut := ask(t, env, "center", "--config", cfg, "--data", dir, "nodes", "add", "kitchen", "--id", id, "--key", key, "--room", "kitchen"); code != 0 {
		t.Fatalf("nodes add: %q %q", out, errOut)
	}
	addr := serveCenterTest(t, env, "--config", cfg, "--data", dir)
	script, _ := filepath.Abs("testdata/jarvisnode/drive.py")
	work := t.TempDir()
	drive := func(t *testing.T, scenario, text, answer string) jarvisRun {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "python3", script, work, scenario, text, answer)
		cmd.Env = append(os.Environ(), append(nodeEnv, "TZ=UTC", "HOME="+work, "JARVIS_NODE_ID="+id, "JARVIS_API_KEY="+key, "JARVIS_CENTER_URL=http://"+addr)...)
		out, err := cmd.Output()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		var r jarvisRun
		if err != nil || json.Unmarshal([]byte(lines[len(lines)-1]), &r) != nil {
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("the node: %v\n%s\n%s", err, out, stderr)
		}
		for _, rq := range r.Requests {
			if code, _ := rq[2].(float64); code >= 300 {
				t.Errorf("the node's %v %v got %v", rq[0], rq[1], rq[2])
			}
		}
		t.Logf("%s %q: %d requests %v; said %q", scenario, text, len(r.Requests), r.Requests, r.Result.Message)
		return r
	}
	t.Run("media", func(t *testing.T) {
		clip := sharedtest.Path(t, "testdata/speech/jfk.wav")
		m.Default(replytest.Unknown, ollamatest.Reply{Content: "Hello"})
		cmd := exec.CommandContext(t.Context(), "python3", script, work, "media", clip)
		cmd.Env = append(os.Environ(), append(nodeEnv, "TZ=UTC", "HOME="+work, "JARVIS_NODE_ID="+id, "JARVIS_API_KEY="+key, "JARVIS_CENTER_URL=http://"+addr)...)
		out, err := cmd.CombinedOutput()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		var got struct {
			Transcript    *string `json:"transcript"`
			SpokenBytes   int     `json:"spoken_bytes"`
			Streamed      bool    `json:"streamed"`
			StreamedBytes int     `json:"streamed_bytes"`
			Wake, Ack     string
			Chat          string
			Requests      [][]any `json:"requests"`
		}
		if err != nil || json.Unmarshal([]byte(lines[len(lines)-1]), &got) != nil {
			t.Fatalf("the node: %v\n%s", err, out)
		}
		t.Logf("media: %+v", got)
		if whisper.Built() != (got.Transcript != nil) {
			t.Errorf("transcript %v with whisper.cpp built %v", got.Transcript, whisper.Built())
		}
		if got.SpokenBytes < 1000 || !got.Streamed || got.StreamedBytes < 1000 {
			t.Errorf("the center's voice: %d bytes spoken, streamed %v (%d bytes)", got.SpokenBytes, got.Streamed, got.StreamedBytes)
		}
		if got.Wake == "" || got.Ack == "" || got.Chat != "Hello" {
			t.Errorf("wake %q, acknowledgement %q, chat %q", got.Wake, got.Ack, got.Chat)
		}
	})
	for _, scenario := range []string{"stream", "command"} {
		t.Run(scenario+"/timer", func(t *testing.T) {
			m.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration_seconds": 600, "label": "tea"}}}},
				ollamatest.Reply{Content: "Your tea countdown runs for ten minutes."})
			r := drive(t, scenario, "start a countdown for my tea please", "")
			if len(r.Timers) == 0 || !strings.Contains(strings.ToLower(r.Timers[len(r.Timers)-1]["label"].(string)), "tea") {
				t.Errorf("no tea timer on the node: %+v", r.Timers)
			}
			if !r.Result.Success {
				t.Errorf("the node's result: %+v", r.Result)
			}
		})
		t.Run(scenario+"/question", func(t *testing.T) {
			m.On(replytest.Chat, ollamatest.Reply{Content: "Hello from the center. Have a lovely day!"})
			r := drive(t, scenario, "tell me something cheerful", "")
			if !r.Result.Success || !strings.Contains(r.Result.Message, "Hello from the center.") {
				t.Errorf("the node's result: %+v", r.Result)
			}
		})
		t.Run(scenario+"/validation", func(t *testing.T) {
			bad := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "calculate", Arguments: map[string]any{"num1": 3, "num2": 4, "operation": "combine"}}}}
			m.On(replytest.Chat, bad, bad,
				ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "calculate", Arguments: map[string]any{"num1": 3, "num2": 4, "operation": "multiply"}}}},
				ollamatest.Reply{Content: "Three times four is twelve."})
			r := drive(t, scenario, "do some math with three and four", "multiply")
			if len(r.Questions) != 1 || r.Questions[0].ParameterName != "operation" || len(r.Questions[0].Options) != 4 || r.Questions[0].ToolCallID == "" {
				t.Fatalf("the node was asked %+v", r.Questions)
			}
			cs := chats(srv)
			if last := cs[len(cs)-1].Messages; !strings.Contains(last[len(last)-1].Content, "12") {
				t.Errorf("the node's product did not reach the model: %q", last[len(last)-1].Content)
			}
		})
		t.Run(scenario+"/failing-tool", func(t *testing.T) {
			m.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration_seconds": 0}}}},
				ollamatest.Reply{Content: "That countdown needs a length."})
			r := drive(t, scenario, "start a countdown for my eggs", "")
			cs := chats(srv)
			if last := cs[len(cs)-1].Messages; !strings.Contains(last[len(last)-1].Content, "Duration must be positive") {
				t.Errorf("the model heard %q, want the node's error", last[len(last)-1].Content)
			}
			if r.Result.Success {
				t.Errorf("a failed tool reported success: %+v", r.Result)
			}
		})
	}
}
