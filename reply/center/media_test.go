package center

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/go-audio/wav"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// echoTranscriber keeps the recording it was given and hears the language
// hint, so the test sees what arrived.
type echoTranscriber struct{ got []byte }

func (e *echoTranscriber) Transcribe(ctx context.Context, wav []byte, language string) (string, string, error) {
	e.got = wav
	return "heard " + language, "en", nil
}

// tinyWAV is a WAV file of n silent 16 kHz samples.
func tinyWAV(t *testing.T, n int) []byte {
	b, err := wavOf(Audio{Rate: 16000, Channels: 1, PCM: make([]byte, 2*n)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func multipartBody(t *testing.T, field string, file []byte, lang string) (string, *bytes.Buffer) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile(field, "/tmp/recording.wav")
	fw.Write(file)
	if lang != "" {
		mw.WriteField("language", lang)
	}
	mw.Close()
	return mw.FormDataContentType(), &buf
}

// TestMediaEndpoints: what the center does for small nodes, behind their
// credential and within its bounds.
func TestMediaEndpoints(t *testing.T) {
	voice, stt := &toneVoice{}, &echoTranscriber{}
	c := newCenter(t, "", Options{MediaLimit: 64 << 10, Media: Media{Voice: voice, Transcriber: stt, SpeakChars: 100}})
	defer c.stop()
	n := newJarvisNode(t, c, "garage")
	postTo := func(base, path, ctype string, body io.Reader, cred string) (int, http.Header, []byte) {
		req, _ := http.NewRequest("POST", base+path, body)
		req.Header.Set("Content-Type", ctype)
		if cred != "" {
			req.Header.Set("X-API-Key", cred)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, raw
	}
	post := func(path, ctype string, body io.Reader, cred string) (int, http.Header, []byte) {
		return postTo(c.http.URL, path, ctype, body, cred)
	}
	cred := n.header.Get("X-API-Key")

	ctype, body := multipartBody(t, "file", tinyWAV(t, 1600), "de")
	code, _, raw := post(PathTranscribe, ctype, body, cred)
	if code != 200 || string(raw) != `{"text":"heard de","language":"en"}`+"\n" || len(stt.got) != 44+3200 {
		t.Errorf("transcribe: %d %s (%d bytes arrived)", code, raw, len(stt.got))
	}
	for _, tt := range []struct {
		name  string
		field string
		file  []byte
		cred  string
		code  int
		says  string
	}{
		{"no credential", "file", tinyWAV(t, 10), "", 401, "credentials"},
		{"not a WAV", "file", []byte("ID3 an mp3 perhaps"), cred, 400, "not a WAV"},
		{"no file", "audio", tinyWAV(t, 10), cred, 400, "the form has no"},
		{"too long", "file", tinyWAV(t, 40000), cred, 413, "over the limit"},
	} {
		ctype, body := multipartBody(t, tt.field, tt.file, "")
		code, _, raw := post(PathTranscribe, ctype, body, tt.cred)
		if code != tt.code || !strings.Contains(string(raw), tt.says) {
			t.Errorf("transcribe, %s: %d %s; want %d naming %q", tt.name, code, raw, tt.code, tt.says)
		}
	}

	code, h, raw := post(PathSpeak, "application/json", strings.NewReader(`{"text": "Hello there."}`), cred)
	dec := wav.NewDecoder(bytes.NewReader(raw))
	buf, err := dec.FullPCMBuffer()
	if code != 200 || h.Get("Content-Type") != "audio/wav" || err != nil || dec.SampleRate != 16000 || len(buf.Data) != len("Hello there.") {
		t.Errorf("speak: %d %s, %v, %d Hz, %d samples", code, h.Get("Content-Type"), err, dec.SampleRate, len(buf.Data))
	}
	voice.said = nil
	code, h, raw = post(PathSpeakStream, "application/json", strings.NewReader(`{"text": "One thing. And another."}`), cred)
	if code != 200 || h.Get(HeaderSampleRate) != "16000" || len(raw) != 2*len("One thing.And another.") || len(voice.said) != 2 {
		t.Errorf("speak/stream: %d %v %d bytes, said %q", code, h, len(raw), voice.said)
	}
	if code, _, raw := post(PathSpeak, "application/json", strings.NewReader(`{"text": "`+strings.Repeat("la ", 50)+`"}`), cred); code != 413 {
		t.Errorf("a text over the limit: %d %s", code, raw)
	}

	for i, want := range []string{"Yes?", "I'm listening."} {
		code, _, raw := post(PathWakeResponse, "application/json", nil, cred)
		var got Text
		json.Unmarshal(raw, &got)
		if code != 200 || got.Text != want {
			t.Errorf("wake response %d: %d %s", i, code, raw)
		}
	}
	code, _, raw = post(PathAcknowledge, "application/json", strings.NewReader(`{"voice_command": "what is the weather in Lisbon"}`), cred)
	if code != 200 || !strings.Contains(string(raw), `"text":"Let me look into that."`) {
		t.Errorf("acknowledge: %d %s", code, raw)
	}

	c.model.Default(replytest.Unknown, ollamatest.Reply{Content: `{"response": "ok"}`})
	code, _, raw = post(PathChat, "application/json", strings.NewReader(`{"messages": [{"role": "system", "content": "Answer in JSON."}]}`), cred)
	var chat ChatResponse
	json.Unmarshal(raw, &chat)
	if code != 200 || len(chat.Choices) != 1 || chat.Choices[0].Message.Content != `{"response": "ok"}` {
		t.Errorf("chat: %d %s", code, raw)
	}
	goldenText(t, string(raw), "chat")
	// A reasoning model's thinking is no part of what a node says.
	c.model.Default(replytest.Unknown, ollamatest.Reply{Content: "<think>The user wants a joke. Maybe about cats?</think>\n\nWhy did the cat sit on the computer?"})
	code, _, raw = post(PathChat, "application/json", strings.NewReader(`{"messages": [{"role": "user", "content": "tell me a joke"}]}`), cred)
	chat = ChatResponse{}
	json.Unmarshal(raw, &chat)
	if code != 200 || len(chat.Choices) != 1 || chat.Choices[0].Message.Content != "Why did the cat sit on the computer?" {
		t.Errorf("chat with a reasoning model: %d %s", code, raw)
	}
	c.model.Default(replytest.Unknown, ollamatest.Reply{Content: "<think>The user wants a joke. Maybe"})
	if code, _, raw := post(PathChat, "application/json", strings.NewReader(`{"messages": [{"role": "user", "content": "tell me a joke"}]}`), cred); code != http.StatusBadGateway || !strings.Contains(string(raw), "reasoning only") {
		t.Errorf("a chat answered with reasoning only: %d %s, want 502 saying so", code, raw)
	}
	if code, _, raw := post(PathChat, "application/json", strings.NewReader(`{"messages": [{"role": "tool", "content": "x"}]}`), cred); code != 400 {
		t.Errorf("a chat with a tool message: %d %s", code, raw)
	}

	// A center without the parts says so.
	bare := newCenter(t, "", Options{})
	defer bare.stop()
	bare.srv.o.Media.Model = nil
	m := newJarvisNode(t, bare, "shed")
	for _, path := range []string{PathSpeak, PathSpeakStream, PathChat, PathTranscribe} {
		code, _, raw := postTo(bare.http.URL, path, "application/json", strings.NewReader(`{"text": "hi", "messages": [{"role": "user", "content": "hi"}]}`), m.header.Get("X-API-Key"))
		if code != http.StatusServiceUnavailable || !strings.Contains(string(raw), "this center has no") {
			t.Errorf("%s without it: %d %s", path, code, raw)
		}
	}
}

// TestHeaderText: X-Assistant-Message is what Python's unquote reads back.
func TestHeaderText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"It's 5°C + sunny.", "It%27s%205%C2%B0C%20%2B%20sunny."},
		{"a/b?c=d&e", "a%2Fb%3Fc%3Dd%26e"},
		{"safe-._~", "safe-._~"},
	} {
		if got := headerText(tt.in); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.want)
		}
	}
	long := headerText(strings.Repeat("é", 10000))
	if len(long) > messageHeaderMax || !strings.HasSuffix(long, "%C3%A9") {
		t.Errorf("a long message: %d bytes, ends %q", len(long), long[len(long)-12:])
	}
}
