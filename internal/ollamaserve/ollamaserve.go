// Package ollamaserve runs the real Ollama server, the pinned release kept
// in ../shared/third_party, for Hark's integration tests and benchmarks:
// it unpacks the binary once (checking its sha256), starts `ollama serve`
// on a free loopback port with its own models directory and debug logging,
// imports models from GGUF files, and reads from the server's log how much
// of each prompt its cache reused.
package ollamaserve

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/harkbox/hark/internal/atomicfile"
)

// The pinned release.
const (
	Archive = "third_party/ollama-v0.17.4-linux-amd64.gz"
	SHA256  = "658a04e228b300776f07c11d403d0d583766cca954e482ec46e0bd838643d480"
)

// ErrAbsent: the pinned release is not beside the repository.
var ErrAbsent = errors.New("ollamaserve: the pinned Ollama release is not here")

// Binary returns the server binary unpacked from shared/Archive into dir,
// unpacking it when it is missing or older than the archive.
func Binary(shared, dir string) (string, error) {
	gz := filepath.Join(shared, Archive)
	st, err := os.Stat(gz)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrAbsent, err)
	}
	bin := filepath.Join(dir, "ollama")
	if bt, err := os.Stat(bin); err == nil && !bt.ModTime().Before(st.ModTime()) {
		return bin, nil
	}
	raw, err := os.ReadFile(gz)
	if err != nil {
		return "", fmt.Errorf("ollamaserve: %w", err)
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != SHA256 {
		return "", fmt.Errorf("ollamaserve: %s is not the pinned release (sha256 differs)", gz)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return "", fmt.Errorf("ollamaserve: %s: %w", gz, err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		return "", fmt.Errorf("ollamaserve: %s: %w", gz, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("ollamaserve: %w", err)
	}
	if err := atomicfile.Write(bin, body, 0o755); err != nil {
		return "", fmt.Errorf("ollamaserve: %w", err)
	}
	return bin, nil
}

// Server is a running `ollama serve`.
type Server struct {
	// URL is the server's base URL.
	URL *url.URL
	bin string
	env []string
	cmd *exec.Cmd
	log *lockedBuffer
}

// Start runs bin as a server with its models in models, on a free port,
// logging at debug level, and waits until it listens.
func Start(ctx context.Context, bin, models string, extraEnv ...string) (*Server, error) {
	s := &Server{bin: bin, log: &lockedBuffer{}}
	s.env = append(os.Environ(), "OLLAMA_MODELS="+models, "OLLAMA_DEBUG=1", "OLLAMA_NOHISTORY=1", "OLLAMA_HOST=127.0.0.1:0")
	s.env = append(s.env, extraEnv...)
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = s.env
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("ollamaserve: start: %w", err)
	}
	listening := regexp.MustCompile(`Listening on (127\.0\.0\.1:\d+)`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := listening.FindStringSubmatch(s.log.String()); m != nil {
			s.URL = &url.URL{Scheme: "http", Host: m[1]}
			s.env = append(s.env, "OLLAMA_HOST="+m[1])
			return s, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			s.Close()
			return nil, fmt.Errorf("ollamaserve: the server did not listen within 30 s; its log:\n%s", s.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Create imports a model named name from a Modelfile's text, quantizing it
// when quantize is set ("q4_K_M"); paths in the Modelfile are absolute.
func (s *Server) Create(ctx context.Context, name, modelfile, quantize string) error {
	dir, err := os.MkdirTemp("", "hark-modelfile")
	if err != nil {
		return fmt.Errorf("ollamaserve: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "Modelfile")
	if err := os.WriteFile(path, []byte(modelfile), 0o644); err != nil {
		return fmt.Errorf("ollamaserve: %w", err)
	}
	args := []string{"create", name, "-f", path}
	if quantize != "" {
		args = append(args, "--quantize", quantize)
	}
	cmd := exec.CommandContext(ctx, s.bin, args...)
	cmd.Env = s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ollamaserve: create %s: %w: %s", name, err, lastLines(out, 5))
	}
	return nil
}

// Has reports whether the server has a model.
func (s *Server) Has(ctx context.Context, name string) bool {
	cmd := exec.CommandContext(ctx, s.bin, "show", name)
	cmd.Env = s.env
	return cmd.Run() == nil
}

// CacheUse is one request as the model runner logged it: the prompt's
// tokens, and how many of them its cache already held.
type CacheUse struct {
	Prompt, Used int
}

// Reused is the share of the prompt that came from the cache.
func (c CacheUse) Reused() float64 {
	if c.Prompt == 0 {
		return 0
	}
	return float64(c.Used) / float64(c.Prompt)
}

var cacheLine = regexp.MustCompile(`msg="loading cache slot".*? prompt=(\d+) used=(\d+)`)

// CacheUses is every request's cache use so far, oldest first.
func (s *Server) CacheUses() []CacheUse {
	var out []CacheUse
	sc := bufio.NewScanner(bytes.NewReader(s.log.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if m := cacheLine.FindStringSubmatch(sc.Text()); m != nil {
			p, _ := strconv.Atoi(m[1])
			u, _ := strconv.Atoi(m[2])
			out = append(out, CacheUse{Prompt: p, Used: u})
		}
	}
	return out
}

// Log is the server's log so far.
func (s *Server) Log() string { return s.log.String() }

// Close stops the server and its model runners.
func (s *Server) Close() {
	if s.cmd.Process != nil {
		s.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
	}
}

func lastLines(b []byte, n int) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return string(bytes.Join(lines[max(0, len(lines)-n):], []byte("\n")))
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

func (l *lockedBuffer) String() string { return string(l.Bytes()) }
