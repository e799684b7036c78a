package center

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// jarvisNode sends what a stock Jarvis node (jarvis-node-setup) sends, the
// way it sends it: its credential in X-API-Key, JSON bodies, a time zone
// guessed from the host's offset and never a room. Every exchange is kept
// for the golden files.
type jarvisNode struct {
	t      *testing.T
	base   string
	header http.Header
	log    []string
}

func newJarvisNode(t *testing.T, c *centerSide, id string) *jarvisNode {
	t.Helper()
	cred, err := c.keys.Enrol(t.Context(), Enrolment{Name: id, ID: id, Key: "a-key-the-node-already-has", Room: "kitchen"})
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("X-API-Key", cred)
	return &jarvisNode{t: t, base: c.http.URL, header: h}
}

// do sends one request and returns the status, headers and body; an audio
// body is kept in the log by its length only.
func (n *jarvisNode) do(method, path string, body any) (int, http.Header, []byte) {
	n.t.Helper()
	var rd io.Reader
	var sent string
	if body != nil {
		b, _ := json.Marshal(body)
		if s, ok := body.(string); ok {
			b = []byte(s)
		}
		rd, sent = bytes.NewReader(b), string(b)
	}
	req, _ := http.NewRequestWithContext(n.t.Context(), method, n.base+path, rd)
	req.Header = n.header.Clone()
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		n.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	got := indent(string(raw))
	if resp.Header.Get("Content-Type") == RawAudio {
		got = fmt.Sprintf("(%d bytes of audio) rate=%s channels=%s width=%s message=%q", len(raw), resp.Header.Get(HeaderSampleRate),
			resp.Header.Get(HeaderChannels), resp.Header.Get(HeaderSampleWidth), resp.Header.Get(HeaderAssistantMessage))
	}
	n.log = append(n.log, fmt.Sprintf("%s %s\n> %s\n< %d %s\n", method, path, indent(sent), resp.StatusCode, got))
	return resp.StatusCode, resp.Header, raw
}

// jarvisGolden compares the node's exchanges with testdata/NAME.golden,
// ids normalized, or rewrites it with -update.
func jarvisGolden(t *testing.T, log []string, name string) {
	t.Helper()
	got := regexp.MustCompile(`(call|ask)_[0-9a-f]{16}`).ReplaceAllString(strings.Join(log, "\n"), "${1}_ID")
	goldenText(t, got, name)
}

func goldenText(t *testing.T, got, name string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		os.WriteFile(path, []byte(got), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it); got:\n%s", path, got)
	}
}

// timerTool is a client tool as a Jarvis command describes itself: the
// function, and beside it the words and utterances that lead to it.
func timerTool() map[string]any {
	return map[string]any{
		"type": "function",
		"function": map[string]any{
			"name":        "set_timer",
			"description": "Starts a countdown on this speaker.",
			"parameters": map[string]any{"type": "object", "required": []string{"duration_seconds"}, "properties": map[string]any{
				"duration_seconds": map[string]any{"type": "integer", "description": "How long, in seconds."},
				"label":            map[string]any{"type": "string", "description": "What it is for."},
			}},
		},
		"allow_direct_answer": false,
		"is_risky":            false,
		"keywords":            []string{"brew", "countdown"},
		"examples": []map[string]any{
			{"voice_command": "count down ten minutes for the brew", "expected_parameters": map[string]any{"duration_seconds": 600, "label": "brew"}, "is_primary": true},
		},
	}
}

// jarvisStart is a stock node's conversation start: its time zone as a
// UTC host guesses it, its commands twice (as tools and as definitions),
// and no room.
func jarvisStart(id string, tools ...map[string]any) map[string]any {
	var defs []map[string]any
	for _, t := range tools {
		f := t["function"].(map[string]any)
		defs = append(defs, map[string]any{"command_name": f["name"], "description": f["description"], "keywords": t["keywords"],
			"examples": t["examples"], "allow_direct_answer": false, "is_risky": false, "parameters": []any{}})
	}
	return map[string]any{"conversation_id": id, "node_context": map[string]any{"timezone": "UTC-00:00"},
		"available_commands": defs, "client_tools": tools, "skip_warmup_inference": true}
}

// toneVoice is a voice that speaks every character as one 16 kHz sample,
// so the audio's length tells what was said.
type toneVoice struct {
	mu   sync.Mutex
	said []string
	fail bool
}

func (v *toneVoice) Speak(ctx context.Context, text string, w io.Writer) (int, int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.fail {
		return 0, 0, fmt.Errorf("no voice today")
	}
	v.said = append(v.said, text)
	_, err := w.Write(make([]byte, 2*len(text)))
	return 16000, 1, err
}

// TestJarvisTimerTurn: a stock node's turn in which the center asks it to
// set a timer: date context, start, /stream (202: the tool call),
// /continue/stream (202: no voice, fall back) and the same result to
// /continue, which completes. The wire is pinned in a golden file.
func TestJarvisTimerTurn(t *testing.T) {
	c := newCenter(t, "", Options{Now: func() time.Time { return clock }})
	defer c.stop()
	n := newJarvisNode(t, c, "0d6c1c2e-7d4b-4d56-9a51-6c1f3b1c2a10")
	c.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration_seconds": 600, "label": "tea"}}}},
		ollamatest.Reply{Content: "Your tea timer runs for ten minutes."})
	const conv = "5f0e7a52-3c1d-4e0b-8f4a-2b7d9c6e1a33"
	if code, _, _ := n.do("GET", PathDateContext+"?timezone=UTC-00:00", nil); code != 200 {
		t.Fatalf("date context: %d", code)
	}
	n.log = nil // pinned by TestDateContext
	if code, _, body := n.do("POST", PathStart, jarvisStart(conv, timerTool())); code != 200 {
		t.Fatalf("start: %d %s", code, body)
	}
	code, _, body := n.do("POST", PathCommandStream, map[string]any{"voice_command": "keep an eye on my tea for ten minutes", "conversation_id": conv})
	var resp Response
	json.Unmarshal(body, &resp)
	if code != http.StatusAccepted || resp.StopReason != StopToolCalls || len(resp.ToolCalls) != 1 {
		t.Fatalf("stream: %d %s", code, body)
	}
	result := map[string]any{"conversation_id": conv, "tool_results": []any{map[string]any{"tool_call_id": resp.ToolCalls[0].ID,
		"output": map[string]any{"success": true, "message": "Timer set for 10 minutes.", "context": map[string]any{"timer_id": "t1", "duration_seconds": 600}, "error": nil}}}}
	if code, _, body := n.do("POST", PathContinueStream, result); code != http.StatusAccepted || !strings.Contains(string(body), UseBlocking) {
		t.Fatalf("continue/stream without a voice: %d %s", code, body)
	}
	code, h, body := n.do("POST", PathContinue, result)
	json.Unmarshal(body, &resp)
	if code != 200 || resp.StopReason != StopComplete || resp.AssistantMessage != "Your tea timer runs for ten minutes." {
		t.Fatalf("continue: %d %s", code, body)
	}
	if h.Get("Content-Length") != strconv.Itoa(len(body)) {
		t.Errorf("the answer came with Content-Length %q for %d bytes; want its length told, not chunks", h.Get("Content-Length"), len(body))
	}
	chats := c.llm.Chats()
	if last := chats[len(chats)-1].Messages; !strings.Contains(last[len(last)-1].Content, "Timer set for 10 minutes.") {
		t.Errorf("the node's result did not reach the model: %+v", last[len(last)-1])
	}
	if sys := chats[0].Messages[0].Content; !strings.Contains(sys, "kitchen") {
		t.Errorf("the room the center keeps for the node is not in the prompt")
	}
	noRecordsLeft(t, c)
	jarvisGolden(t, n.log, "jarvis_timer")
}

// TestJarvisSpokenAnswers: with a voice, /stream answers a complete reply
// with 200 audio/raw, its text URL-encoded in X-Assistant-Message, and
// /continue/stream speaks the reply after a tool result.
func TestJarvisSpokenAnswers(t *testing.T) {
	voice := &toneVoice{}
	c := newCenter(t, "", Options{Media: Media{Voice: voice}})
	defer c.stop()
	n := newJarvisNode(t, c, "hall-node")
	const conv = "conv-spoken"
	n.do("POST", PathStart, jarvisStart(conv, timerTool()))
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "It's 5°C + sunny. Enjoy it!"})
	code, h, body := n.do("POST", PathCommandStream, map[string]any{"voice_command": "how is it looking outside today", "conversation_id": conv})
	msg, _ := url.PathUnescape(h.Get(HeaderAssistantMessage))
	if code != 200 || msg != "It's 5°C + sunny. Enjoy it!" || len(body) != 2*len("It's 5°C + sunny.")+2*len("Enjoy it!") {
		t.Fatalf("spoken answer: %d %q %d bytes, said %q", code, h.Get(HeaderAssistantMessage), len(body), voice.said)
	}
	// A tool call is never audio.
	c.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration_seconds": 300}}}},
		ollamatest.Reply{Content: "Five minutes, starting now."})
	code, _, body = n.do("POST", PathCommandStream, map[string]any{"voice_command": "keep an eye on the brew please", "conversation_id": conv})
	var resp Response
	json.Unmarshal(body, &resp)
	if code != http.StatusAccepted || resp.StopReason != StopToolCalls {
		t.Fatalf("a tool call through /stream: %d %s", code, body)
	}
	result := map[string]any{"conversation_id": conv, "tool_results": []any{map[string]any{"tool_call_id": resp.ToolCalls[0].ID,
		"output": map[string]any{"success": true, "message": "Timer set for 5 minutes.", "context": nil, "error": nil}}}}
	code, h, _ = n.do("POST", PathContinueStream, result)
	if code != 200 || h.Get("Content-Type") != RawAudio || h.Get(HeaderSampleRate) != "16000" {
		t.Fatalf("continue/stream with a voice: %d %v", code, h)
	}
	noRecordsLeft(t, c)
	// The voice fails: the same answers come as JSON.
	voice.fail = true
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "Still here."})
	code, _, body = n.do("POST", PathCommandStream, map[string]any{"voice_command": "are you still there then", "conversation_id": conv})
	if code != http.StatusAccepted || !strings.Contains(string(body), "Still here.") {
		t.Errorf("a failed voice: %d %s", code, body)
	}
	jarvisGolden(t, n.log, "jarvis_spoken")
}

// TestDateContext: the calendar a node builds its tool schemas from, in
// every field the client's DateContext model requires, for a zone with
// summer time, an offset zone (its plus sign unescaped in the query, so a
// space), and one the center does not know (its own zone, UTC here).
func TestDateContext(t *testing.T) {
	c := newCenter(t, "", Options{Location: time.UTC, Now: func() time.Time { return time.Date(2026, 3, 8, 6, 30, 0, 0, time.UTC) }})
	defer c.stop()
	n := newJarvisNode(t, c, "study")
	var all []string
	for _, tz := range []string{"America/New_York", "UTC+05:30", "Mars/Olympus"} {
		code, _, body := n.do("GET", PathDateContext+"?timezone="+strings.ReplaceAll(tz, "/", "%2F"), nil)
		var dc DateContext
		if code != 200 || json.Unmarshal(body, &dc) != nil {
			t.Fatalf("%s: %d %s", tz, code, body)
		}
		all = append(all, tz+": "+indent(string(body)))
	}
	var dc DateContext
	_, _, body := n.do("GET", PathDateContext+"?timezone=America/New_York", nil)
	json.Unmarshal(body, &dc)
	for _, tt := range []struct{ name, got, want string }{
		{"today in New York", dc.Current.DateISO, "2026-03-08"},
		{"its time", dc.Current.Time, "01:30 AM"},
		{"its midnight in UTC", dc.Current.UTCStartOfDay, "2026-03-08T05:00:00Z"},
		{"tomorrow's midnight, after the clocks moved", dc.RelativeDates.Tomorrow.UTCStartOfDay, "2026-03-09T04:00:00Z"},
		{"this weekend's Sunday", dc.Weekend.ThisWeekend[1].Date, "2026-03-08"},
		{"next Monday", dc.Weekdays.NextMonday.Date, "2026-03-16"},
		{"last Friday", dc.Weekdays.LastFriday.Date, "2026-03-06"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, tt.got, tt.want)
		}
	}
	goldenText(t, strings.Join(all, "\n\n"), "date_context")
}

// TestJarvisAuthForms: the three ways a node sends its credential.
func TestJarvisAuthForms(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	cred, _ := c.keys.Enrol(t.Context(), Enrolment{Name: "porch", ID: "porch-7", Key: "0123456789abcdef-key"})
	id, key, _ := strings.Cut(cred, ":")
	for _, tt := range []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"X-API-Key ID:KEY", map[string]string{"X-API-Key": cred}, 200},
		{"X-Node-ID and X-API-Key", map[string]string{"X-Node-ID": id, "X-API-Key": key}, 200},
		{"X-Node-ID with X-API-Key ID:KEY", map[string]string{"X-Node-ID": id, "X-API-Key": cred}, 200},
		{"Bearer", map[string]string{"Authorization": "Bearer " + cred}, 200},
		{"the key alone", map[string]string{"X-API-Key": key}, 401},
		{"another node's id", map[string]string{"X-Node-ID": "kitchen", "X-API-Key": key}, 401},
		{"wrong key", map[string]string{"X-API-Key": id + ":nope"}, 401},
		{"nothing", nil, 401},
	} {
		req, _ := http.NewRequest("GET", c.http.URL+PathStatus, nil)
		for k, v := range tt.headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, resp.StatusCode, tt.want)
		}
	}
}

// TestTimeZones: a node's zone is read as an IANA name or an offset; one
// the center cannot read is the center's own, with one warning, and never
// a failed start.
func TestTimeZones(t *testing.T) {
	for _, tt := range []struct {
		name   string
		offset int // seconds east of UTC, on clock's day
		ok     bool
	}{
		{"UTC-00:00", 0, true}, {"UTC+00:00", 0, true}, {"UTC", 0, true}, {"UTC+05:30", 19800, true},
		{"UTC 04:00", 14400, true}, {"UTC-03:00", -10800, true}, {"GMT+2", 7200, true},
		{"Europe/Lisbon", 0, true}, {"America/New_York", -18000, true},
		{"Mars/Olympus", 0, false}, {"UTC+25:00", 0, false}, {"", 0, false},
	} {
		loc, ok := location(tt.name)
		if ok != tt.ok {
			t.Errorf("%q: got ok %v, want %v", tt.name, ok, tt.ok)
			continue
		}
		if ok {
			if _, off := clock.In(loc).Zone(); off != tt.offset {
				t.Errorf("%q: got offset %d, want %d", tt.name, off, tt.offset)
			}
		}
	}
	var logged bytes.Buffer
	c := newCenter(t, "", Options{Location: time.FixedZone("center", 3600), Log: slog.New(slog.NewTextHandler(&logged, nil))})
	defer c.stop()
	n := newJarvisNode(t, c, "attic")
	for i := range 2 {
		start := jarvisStart(fmt.Sprintf("mars-%d", i))
		start["node_context"] = map[string]any{"timezone": "Mars/Olympus"}
		if code, _, body := n.do("POST", PathStart, start); code != 200 {
			t.Fatalf("a start with an unknown zone: %d %s", code, body)
		}
	}
	if got := strings.Count(logged.String(), "Mars/Olympus"); got != 1 {
		t.Errorf("warnings about the unknown zone: got %d, want 1:\n%s", got, logged.String())
	}
}

// TestUnknownZonesAreBounded: a node that names a new zone the center
// cannot read in each request, every other one 16 KiB long, gets the
// center's own zone each time; the center remembers and warns of only
// the first maxWarnedZones, and logs none of them whole.
func TestUnknownZonesAreBounded(t *testing.T) {
	var logged bytes.Buffer
	c := newCenter(t, "", Options{Location: time.FixedZone("center", 3600), Rate: 1e6, Burst: 1e6, Log: slog.New(slog.NewTextHandler(&logged, nil))})
	defer c.stop()
	n := newJarvisNode(t, c, "attic")
	long := strings.Repeat("x", 16<<10)
	for i := range 10 * maxWarnedZones {
		zone := fmt.Sprintf("Nowhere/%d", i)
		if i%2 == 1 {
			zone += long
		}
		code, _, body := n.do("GET", PathDateContext+"?timezone="+url.QueryEscape(zone), nil)
		var dc DateContext
		if code != 200 || json.Unmarshal(body, &dc) != nil || dc.Timezone.UserTimezone != "center" {
			t.Fatalf("date context for unknown zone %d: %d %.200s; want 200 in the center's zone", i, code, body)
		}
	}
	c.srv.zonesWarned.mu.Lock()
	kept, size := len(c.srv.zonesWarned.names), 0
	for name := range c.srv.zonesWarned.names {
		size += len(name)
	}
	c.srv.zonesWarned.mu.Unlock()
	if kept > maxWarnedZones || size > maxWarnedZones*maxZoneName {
		t.Errorf("after %d unknown zones the center keeps %d, of %d bytes; want at most %d, of at most %d bytes each", 10*maxWarnedZones, kept, size, maxWarnedZones, maxZoneName)
	}
	lines := strings.Split(strings.TrimSpace(logged.String()), "\n")
	if warned := strings.Count(logged.String(), "does not know"); warned > maxWarnedZones+1 {
		t.Errorf("the log warns %d times of unknown zones; want at most %d", warned, maxWarnedZones+1)
	}
	for _, l := range lines {
		if len(l) > 512 {
			t.Errorf("a log line of %d bytes: %.200s…", len(l), l)
			break
		}
	}
}

// TestJarvisQuestion: a question the center asks carries parameter_name,
// options and a tool_call_id; a stock node answers it as a tool result
// for that id (or for "validation-response"), and the reply goes on.
func TestJarvisQuestion(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	n := newJarvisNode(t, c, "den")
	volume := map[string]any{"type": "function", "function": map[string]any{"name": "set_volume", "description": "Sets how loud the speaker is.",
		"parameters": map[string]any{"type": "object", "required": []string{"level"}, "properties": map[string]any{
			"level": map[string]any{"type": "string", "enum": []string{"quiet", "normal", "loud"}}}}}}
	bad := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_volume", Arguments: map[string]any{"level": "boom"}}}}
	for i, answerID := range []string{"", ValidationAnswerID} {
		conv := fmt.Sprintf("q%d", i)
		n.do("POST", PathStart, jarvisStart(conv, volume))
		c.model.On(replytest.Chat, bad, bad)
		code, _, body := n.do("POST", PathCommandStream, map[string]any{"voice_command": "make the sound do the thing it does", "conversation_id": conv})
		var resp Response
		json.Unmarshal(body, &resp)
		q := resp.ValidationRequest
		if code != http.StatusAccepted || resp.StopReason != StopValidation || q == nil || q.ToolCallID == "" || q.ParameterName != "level" || len(q.Options) != 3 {
			t.Fatalf("the question: %d %s", code, body)
		}
		if answerID == "" {
			answerID = q.ToolCallID
		}
		c.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_volume", Arguments: map[string]any{"level": "loud"}}}},
			ollamatest.Reply{Content: "Louder it is."})
		answer := map[string]any{"conversation_id": conv, "tool_results": []any{map[string]any{"tool_call_id": answerID,
			"output": map[string]any{"answer": "the loud one", "parameter_name": q.ParameterName, "question": q.Question, "options": q.Options}}}}
		code, _, body = n.do("POST", PathContinue, answer)
		json.Unmarshal(body, &resp)
		if code != 200 || resp.StopReason != StopToolCalls || !strings.Contains(resp.ToolCalls[0].Function.Arguments, "loud") {
			t.Fatalf("the answer for %q: %d %s", answerID, code, body)
		}
		result := map[string]any{"conversation_id": conv, "tool_results": []any{map[string]any{"tool_call_id": resp.ToolCalls[0].ID,
			"output": map[string]any{"success": true, "message": "Volume loud.", "context": nil, "error": nil}}}}
		if code, _, body = n.do("POST", PathContinue, result); code != 200 || !strings.Contains(string(body), "Louder it is.") {
			t.Fatalf("after the answer: %d %s", code, body)
		}
	}
	jarvisGolden(t, n.log[:4], "jarvis_question")
}

// TestJarvisFailedTool: why a node's tool failed (output.error) reaches
// the model.
func TestJarvisFailedTool(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	n := newJarvisNode(t, c, "loft")
	n.do("POST", PathStart, jarvisStart("f1", timerTool()))
	c.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration_seconds": 0}}}},
		ollamatest.Reply{Content: "That timer needs a length."})
	_, _, body := n.do("POST", PathCommand, map[string]any{"voice_command": "keep an eye on nothing at all", "conversation_id": "f1"})
	var resp Response
	json.Unmarshal(body, &resp)
	if len(resp.ToolCalls) != 1 {
		t.Fatalf("no tool call: %s", body)
	}
	failed := map[string]any{"conversation_id": "f1", "tool_results": []any{map[string]any{"tool_call_id": resp.ToolCalls[0].ID,
		"output": map[string]any{"success": false, "context": map[string]any{"error": "invalid_duration", "duration_seconds": 0}, "error": "Duration must be positive"}}}}
	if code, _, body := n.do("POST", PathContinue, failed); code != 200 || !strings.Contains(string(body), "That timer needs a length.") {
		t.Fatalf("%d %s", code, body)
	}
	chats := c.llm.Chats()
	last := chats[len(chats)-1].Messages
	if tool := last[len(last)-1]; tool.Role != "tool" || !strings.Contains(tool.Content, "Duration must be positive") {
		t.Errorf("the model heard %q, want the node's error", tool.Content)
	}
}

// TestJarvisRestart: a start of a running conversation replaces its tools
// and keeps its history; a start may be far over the small body limit.
func TestJarvisRestart(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	n := newJarvisNode(t, c, "lounge")
	n.do("POST", PathStart, jarvisStart("r1", timerTool()))
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "Noted."})
	n.do("POST", PathCommand, map[string]any{"voice_command": "the spare key is under the blue pot", "conversation_id": "r1"})
	other := timerTool()
	other["function"].(map[string]any)["name"] = "start_kettle"
	start := jarvisStart("r1", other)
	start["node_context"].(map[string]any)["agents"] = map[string]any{"home": strings.Repeat("a lamp in the hall; ", 20000)} // ~400 KB of house
	if code, _, body := n.do("POST", PathStart, start); code != 200 {
		t.Fatalf("a second, large start: %d %.200s", code, body)
	}
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "Under the blue pot."})
	n.do("POST", PathCommand, map[string]any{"voice_command": "where did I say the spare key was", "conversation_id": "r1"})
	chats := c.llm.Chats()
	last := chats[len(chats)-1]
	var names []string
	for _, tool := range last.Tools {
		names = append(names, tool.Function.Name)
	}
	if !slices.Contains(names, "start_kettle") || slices.Contains(names, "set_timer") {
		t.Errorf("tools after the new start: %v", names)
	}
	if !strings.Contains(fmtMsgs(last), "blue pot") {
		t.Errorf("the history was lost: %s", fmtMsgs(last))
	}
}

// TestClientToolKeywords: a client tool's keywords and examples bring it to
// the router; without them the same request does not reach it.
func TestClientToolKeywords(t *testing.T) {
	for _, described := range []bool{true, false} {
		c := newCenter(t, "", Options{}, func(o *reply.Options) { o.Router = "keyword" })
		n := newJarvisNode(t, c, "pantry")
		tool := timerTool()
		if !described {
			delete(tool, "keywords")
			delete(tool, "examples")
		}
		start := jarvisStart("k1", tool)
		if !described {
			start["available_commands"] = nil
		}
		n.do("POST", PathStart, start)
		c.model.On(replytest.Chat, ollamatest.Reply{Content: "Sure."})
		n.do("POST", PathCommand, map[string]any{"voice_command": "keep watch over my brew", "conversation_id": "k1"})
		var offered []string
		for _, ch := range c.llm.Chats() {
			for _, tool := range ch.Tools {
				offered = append(offered, tool.Function.Name)
			}
		}
		if got := slices.Contains(offered, "set_timer"); got != described {
			t.Errorf("with keywords and examples %v: set_timer offered %v (%v)", described, got, offered)
		}
		c.stop()
	}
}

// TestEnrol: a node enrolled with the id and key it already has, or with
// new ones; bad ones are named.
func TestEnrol(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	for _, tt := range []struct {
		name string
		e    Enrolment
		want string // the credential, or the error's words
	}{
		{"new", Enrolment{Name: "Back Porch"}, "back-porch:"},
		{"existing", Enrolment{Name: "hall", ID: "0d6c1c2e-7d4b", Key: "k3y-of-the-node"}, "0d6c1c2e-7d4b:k3y-of-the-node"},
		{"again", Enrolment{Name: "hall", ID: "0d6c1c2e-7d4b", Key: "k3y-of-the-node"}, "already exists"},
		{"short key", Enrolment{Name: "den", ID: "den-1", Key: "short"}, "8 to 256 printable"},
		{"colon in id", Enrolment{Name: "den", ID: "den:1"}, "node id"},
	} {
		cred, err := c.keys.Enrol(t.Context(), tt.e)
		got := cred
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	n, err := c.keys.Check(t.Context(), "0d6c1c2e-7d4b:k3y-of-the-node")
	if err != nil || n.Name != "hall" {
		t.Errorf("the enrolled node: %+v, %v", n, err)
	}
}
