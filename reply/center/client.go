package center

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/harkbox/hark/internal/netdial"
)

// ClientOptions configure a Client.
type ClientOptions struct {
	// URL is the center's base URL: https://host:port, or http:// when
	// Insecure is set for a trusted LAN.
	URL string
	// Credential is NODE_ID:KEY, as `hark center nodes add` printed it.
	Credential string
	// Fingerprint pins the center's certificate: "sha256:" and the hex of
	// the SHA-256 of its DER, as the center prints it.
	Fingerprint string
	// Insecure allows plain HTTP.
	Insecure bool
	// Timeout bounds one request; default 4 min: a slow model is slow, and
	// a question that comes while the center loads its model waits for the
	// load (up to its [ollama] load_budget, 3 min by default).
	Timeout time.Duration
	// Resolver looks the center's name up; default the system's. A
	// lookup gets at most 5 s, and its failure is named as DNS's.
	Resolver *net.Resolver
}

// Client is a node's connection to its center.
type Client struct {
	o    ClientOptions
	base *url.URL
	hc   *http.Client
}

// NewClient checks o and returns a Client.
func NewClient(o ClientOptions) (*Client, error) {
	u, err := url.Parse(o.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("center: url %q: want https://HOST:PORT", o.URL)
	}
	if o.Timeout == 0 {
		o.Timeout = 4 * time.Minute
	}
	if !strings.Contains(o.Credential, ":") {
		return nil, errors.New("center: the node's key is not NODE_ID:KEY (hark center nodes add prints it)")
	}
	// The name is looked up within its own budget (a resolver that says
	// nothing is named as such, not taken for a slow center); connections
	// close with a reset, so that a request given up on is dropped with
	// its connection instead of reaching the center when the network
	// comes back.
	tr := &http.Transport{DialContext: netdial.Dialer(netdial.Options{Lookup: dnsBudget, Reset: true, Resolver: o.Resolver}),
		MaxIdleConnsPerHost: 2, TLSHandshakeTimeout: 10 * time.Second}
	switch u.Scheme {
	case "https":
		pin, err := parseFingerprint(o.Fingerprint)
		if err != nil {
			return nil, err
		}
		// The center's certificate is its own, self-signed: it is trusted
		// by the fingerprint the node was enrolled with, not by a CA.
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12,
			VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
				if len(raw) == 0 {
					return errors.New("center: no certificate")
				}
				if sum := sha256.Sum256(raw[0]); !bytes.Equal(sum[:], pin) {
					return fmt.Errorf("center: certificate fingerprint sha256:%x is not the pinned one", sum)
				}
				return nil
			}}
	case "http":
		if !o.Insecure {
			return nil, fmt.Errorf("center: %s is plain HTTP; allow it only on a trusted LAN ([center] insecure_http = true)", o.URL)
		}
	default:
		return nil, fmt.Errorf("center: url %q: want https:// (or http:// with insecure_http)", o.URL)
	}
	return &Client{o: o, base: u, hc: &http.Client{Transport: tr}}, nil
}

// dnsBudget bounds a lookup of the center's name.
const dnsBudget = 5 * time.Second

// DNSError is the center's name that could not be looked up: the
// household's resolver, not the center.
type DNSError struct {
	Host string
	Err  error
}

func (e *DNSError) Error() string {
	return fmt.Sprintf("center: the name %s cannot be looked up (DNS): %v", e.Host, e.Err)
}
func (e *DNSError) Unwrap() error { return e.Err }

func parseFingerprint(s string) ([]byte, error) {
	h, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(s)), "sha256:")
	b, err := hex.DecodeString(strings.ReplaceAll(h, ":", ""))
	if !ok || err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("center: fingerprint %q: want sha256: and 64 hex digits, as the center prints it", s)
	}
	return b, nil
}

// NodeID is the node's id, from its credential.
func (c *Client) NodeID() string { id, _, _ := strings.Cut(c.o.Credential, ":"); return id }

// StatusError is an answer of the center other than 200.
type StatusError struct {
	Code    int
	Message string
}

func (e *StatusError) Error() string { return fmt.Sprintf("center answered %d: %s", e.Code, e.Message) }

// ErrUnreachable: no connection to the center, or no answer in time.
var ErrUnreachable = errors.New("center: unreachable")

// Start registers a conversation's client tools.
func (c *Client) Start(ctx context.Context, req StartRequest) error {
	var out StartResponse
	return c.post(ctx, PathStart, req, nil, &out, nil)
}

// Command sends what the user said; onSentence gets each sentence as the
// center streams it, and "" each time the center says it is still waiting
// for its model. A conversation the center does not hold is made anew.
func (c *Client) Command(ctx context.Context, req CommandRequest, onSentence func(string)) (Response, error) {
	var out Response
	return out, c.post(ctx, PathCommand, req, onSentence, &out, nil)
}

// commandStarted is Command in a conversation the node started: one the
// center does not hold is answered 404 (a StatusError), for the node to
// start it again with its tools (see HeaderStartAgain).
func (c *Client) commandStarted(ctx context.Context, req CommandRequest, onSentence func(string)) (Response, error) {
	var out Response
	return out, c.post(ctx, PathCommand, req, onSentence, &out, http.Header{HeaderStartAgain: {"1"}})
}

// Continue sends tool results or the user's answer.
func (c *Client) Continue(ctx context.Context, req ContinueRequest, onSentence func(string)) (Response, error) {
	var out Response
	return out, c.post(ctx, PathContinue, req, onSentence, &out, nil)
}

// Transcribe has the center transcribe a recording, a WAV file, as
// /media/whisper/transcribe does for nodes without speech-to-text of their
// own; language is a hint. No speech is an empty text.
func (c *Client) Transcribe(ctx context.Context, wav []byte, language string) (text, detected string, err error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "utterance.wav")
	if err != nil {
		return "", "", fmt.Errorf("center: transcribe: %w", err)
	}
	fw.Write(wav)
	if language != "" {
		mw.WriteField("language", language)
	}
	if err := mw.Close(); err != nil {
		return "", "", fmt.Errorf("center: transcribe: %w", err)
	}
	var out Transcript
	if err := c.send(ctx, http.MethodPost, PathTranscribe, mw.FormDataContentType(), body.Bytes(), nil, &out, nil); err != nil {
		return "", "", err
	}
	return out.Text, out.Language, nil
}

// Ping asks the center's status, for the link's health.
func (c *Client) Ping(ctx context.Context) error {
	var out map[string]any
	return c.send(ctx, http.MethodGet, PathStatus, "application/json", nil, nil, &out, nil)
}

// post sends body as JSON to path, with the headers in extra besides.
func (c *Client) post(ctx context.Context, path string, body any, onSentence func(string), out any, extra http.Header) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("center: %s: %w", path, err)
	}
	return c.send(ctx, http.MethodPost, path, "application/json", b, onSentence, out, extra)
}

func (c *Client) send(ctx context.Context, method, path, ctype string, body []byte, onSentence func(string), out any, extra http.Header) error {
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.base.JoinPath(path).String(), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("center: %w", err)
	}
	for k, v := range extra {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+c.o.Credential)
	req.Header.Set("Content-Type", ctype)
	if onSentence != nil {
		req.Header.Set("Accept", NDJSON)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return err
		}
		var dns *net.DNSError
		if errors.As(err, &dns) {
			return fmt.Errorf("%w: %w", ErrUnreachable, &DNSError{Host: dns.Name, Err: dns})
		}
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e Error
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if json.Unmarshal(raw, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(raw))
		}
		return &StatusError{Code: resp.StatusCode, Message: e.Error}
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), NDJSON) {
		raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
		switch {
		case err != nil:
			return fmt.Errorf("center: %s: %w", path, err)
		case len(raw) > maxAnswer:
			return fmt.Errorf("center: %s: the answer is over %d bytes", path, maxAnswer)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("center: %s: %w", path, err)
		}
		return nil
	}
	// A stream: sentences, then the final object.
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	for {
		line, err := readLine(br, maxAnswer)
		if errors.Is(err, errLongLine) {
			return fmt.Errorf("center: %s: a streamed line is over %d bytes", path, maxAnswer)
		}
		if err != nil {
			// A line cut short is a broken stream, whatever its bytes.
			if errors.Is(err, io.EOF) && len(line) == 0 {
				return fmt.Errorf("%w: the stream ended without a final answer", ErrUnreachable)
			}
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("%w: the stream broke in the middle of a line (%d bytes)", ErrUnreachable, len(line))
			}
			return fmt.Errorf("%w: the stream broke: %v", ErrUnreachable, err)
		}
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(line, &probe); err != nil {
			return fmt.Errorf("center: %s: a streamed line of %d bytes is not JSON", path, len(line))
		}
		if _, final := probe["stop_reason"]; final {
			return json.Unmarshal(line, out)
		}
		if _, failed := probe["error"]; failed {
			var e Error
			json.Unmarshal(line, &e)
			return &StatusError{Code: http.StatusServiceUnavailable, Message: e.Error}
		}
		var l Line
		json.Unmarshal(line, &l)
		switch {
		case onSentence == nil:
		case l.Sentence != "":
			onSentence(l.Sentence)
		case l.Waiting:
			onSentence("") // no words: the center is alive, waiting for its model
		}
	}
}

// maxAnswer bounds an answer of the center, and each line of a streamed
// one: a real one is a few KiB. What answers at the center's address on
// a plain HTTP LAN may be another machine, answering without end.
const maxAnswer = 1 << 20

var errLongLine = errors.New("center: line too long")

// readLine reads a line of br, its newline included, of at most limit
// bytes (errLongLine past them), as bufio.Reader.ReadBytes does otherwise.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		if len(line)+len(part) > limit {
			return nil, errLongLine
		}
		line = append(line, part...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}
