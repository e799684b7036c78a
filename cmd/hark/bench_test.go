package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/internal/sharedtest"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/espeak"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
	"github.com/harkbox/hark/pipeline/whisper"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// startDaemon starts `hark run --sim` with a notify socket, as systemd would,
// and returns once it has sent READY=1, with how long that took.
func startDaemon(b *testing.B, srvURL string, args ...string) (*exec.Cmd, io.Reader, time.Duration) {
	b.Helper()
	bin := harkBinary(b)
	dir := b.TempDir()
	sock := filepath.Join(dir, "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	cmd := exec.Command(bin, append([]string{"run", "--sim", "--verbose", "--data", filepath.Join(dir, "data")}, args...)...)
	cmd.Env = []string{"OLLAMA_HOST=" + srvURL, "HOME=" + dir, "PATH=" + os.Getenv("PATH"), "NOTIFY_SOCKET=" + sock}
	stdin, _ := cmd.StdinPipe()
	b.Cleanup(func() { stdin.Close() })
	out, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 256)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		n, err := conn.Read(buf)
		if err != nil {
			cmd.Process.Kill()
			b.Fatalf("no READY=1: %v", err)
		}
		if strings.Contains(string(buf[:n]), "READY=1") {
			return cmd, out, time.Since(start)
		}
	}
}

func stopDaemon(b *testing.B, cmd *exec.Cmd, out io.Reader) {
	cmd.Process.Signal(syscall.SIGTERM)
	go io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		b.Errorf("hark exited with %v", err)
	}
}

// BenchmarkStartToReady measures process start to READY=1 on the notify
// socket: the store opened, the model client and the pipeline armed.
func BenchmarkStartToReady(b *testing.B) {
	srv := ollamatest.New(testModel)
	defer srv.Close()
	var total time.Duration
	for b.Loop() {
		cmd, out, ready := startDaemon(b, srv.URL)
		total += ready
		b.StopTimer()
		stopDaemon(b, cmd, out)
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-ready")
}

var memLine = regexp.MustCompile(`msg=memory heap_alloc_bytes=(\d+) heap_sys_bytes=(\d+) go_sys_bytes=(\d+) rss_bytes=(\d+)`)

// BenchmarkIdleMemory measures the Go heap and the resident set of `hark run
// --sim` sitting idle for two seconds after it is ready: typed input only,
// and (in a build with whisper.cpp) with the whisper test model loaded.
func BenchmarkIdleMemory(b *testing.B) {
	srv := ollamatest.New(testModel)
	defer srv.Close()
	b.Run("typed", func(b *testing.B) { idleMemory(b, srv.URL) })
	b.Run("whisper-tiny", func(b *testing.B) {
		if !whisper.Built() {
			b.Skip("built without whisper.cpp (-tags whisper)")
		}
		model := sharedtest.Path(b, "models/for-tests-ggml-tiny.en.bin")
		cfg := filepath.Join(b.TempDir(), "hark.toml")
		os.WriteFile(cfg, []byte("[whisper]\nmodel = \""+model+"\"\n"), 0o644)
		idleMemory(b, srv.URL, "--config", cfg)
	})
}

func idleMemory(b *testing.B, srvURL string, args ...string) {
	var heap, rss float64
	for b.Loop() {
		b.StopTimer()
		cmd, out, _ := startDaemon(b, srvURL, args...)
		time.Sleep(2 * time.Second)
		cmd.Process.Signal(syscall.SIGUSR1)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := memLine.FindStringSubmatch(sc.Text()); m != nil {
				h, _ := strconv.ParseFloat(m[1], 64)
				r, _ := strconv.ParseFloat(m[4], 64)
				heap += h
				rss += r
				break
			}
		}
		stopDaemon(b, cmd, out)
		b.StartTimer()
	}
	b.ReportMetric(heap/float64(b.N)/(1<<20), "MiB-heap")
	b.ReportMetric(rss/float64(b.N)/(1<<20), "MiB-rss")
}

// stampMic hands over a typed utterance and stamps the end of input.
type stampMic struct{ end chan time.Time }

func (m stampMic) Record(ctx context.Context, l voice.Listen) (voice.Utterance, error) {
	select {
	case <-l.End:
	case <-ctx.Done():
		return voice.Utterance{}, ctx.Err()
	}
	m.end <- time.Now()
	return voice.Utterance{}, nil
}

// fixedText hears every utterance as the same question.
type fixedText string

func (f fixedText) Transcribe(context.Context, voice.Utterance) (voice.Transcript, error) {
	return voice.Transcript{Text: string(f)}, nil
}

// stampSpeaker stamps the first audio sample handed to the output.
type stampSpeaker struct{ first chan time.Time }

func (s stampSpeaker) Open(context.Context) (pipeline.Playback, error) {
	return &stampPlayback{first: s.first}, nil
}

type stampPlayback struct {
	first   chan time.Time
	stamped bool
}

func (p *stampPlayback) Format() (int, int) { return 48000, 2 }
func (p *stampPlayback) Write(ctx context.Context, b pcm.Buffer) error {
	if !p.stamped && len(b.Samples) > 0 {
		p.stamped = true
		p.first <- time.Now()
	}
	return nil
}
func (p *stampPlayback) Close(context.Context) error { return nil }

// fixedSynth returns half a second of tone at once, to leave speech synthesis
// out of the measurement.
type fixedSynth struct{}

func (fixedSynth) Synthesize(context.Context, string) (pcm.Buffer, error) {
	return pcm.Buffer{Rate: 22050, Channels: 1, Samples: make([]float32, 11025)}, nil
}

// BenchmarkEndOfInputToFirstAudio measures a whole simulated turn, from the
// end of the utterance to the first sample handed to the speaker, with the
// real reply engine, store and Ollama client and a test server that answers
// at once. "espeak" includes synthesizing the first sentence; "instant-tts"
// leaves only the pipeline's and the reply path's own overhead.
func BenchmarkEndOfInputToFirstAudio(b *testing.B) {
	for _, tc := range []struct {
		name  string
		synth func() (pipeline.Synthesizer, error)
	}{
		{"espeak", func() (pipeline.Synthesizer, error) { return espeak.New(espeak.Options{}) }},
		{"instant-tts", func() (pipeline.Synthesizer, error) { return fixedSynth{}, nil }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			synth, err := tc.synth()
			if err != nil {
				b.Skip(err)
			}
			srv, m := modelServer(b)
			m.Default(replytest.Chat, ollamatest.Reply{Content: "It is a fine day for it. Anything else?"})
			l, err := config.Load(writeConfig(b, ""), vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": b.TempDir()}))
			if err != nil {
				b.Fatal(err)
			}
			l.Override("data_dir", b.TempDir(), "bench")
			res, err := l.Resolve(vars(nil))
			if err != nil {
				b.Fatal(err)
			}
			a, err := openApp(l, res, newLogger(io.Discard, "error", 0))
			if err != nil {
				b.Fatal(err)
			}
			defer a.close()
			mic := stampMic{end: make(chan time.Time, 2)}
			spk := stampSpeaker{first: make(chan time.Time, 1)}
			p, err := pipeline.New(pipeline.Options{Microphone: mic, Transcriber: fixedText("what time is it"), Replier: a.replier(), Synthesizer: synth, Speaker: spk})
			if err != nil {
				b.Fatal(err)
			}
			feed := p.Subscribe(64)
			events := make(chan pipeline.Event)
			ctx, cancel := context.WithCancel(b.Context())
			defer cancel()
			go p.Run(ctx, events)
			var total time.Duration
			for b.Loop() {
				events <- pipeline.Press
				events <- pipeline.Press
				end := <-mic.end
				// The reply ends in a question, so a follow-up window opens:
				// the press here closes it, as a user's silence would.
				total += (<-spk.first).Sub(end)
				for { // wait for the turn, and the follow-up window, to finish
					st, _ := feed.Next(ctx)
					if st.State == voice.Listening && st.FollowUp {
						events <- pipeline.Press
					}
					if st.State == voice.Idle && st.Turn > 0 {
						break
					}
				}
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-first-audio")
		})
	}
}
