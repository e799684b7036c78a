package control

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/harkbox/hark/internal/listener"
)

// ErrNotRunning reports that no daemon answers on the socket.
var ErrNotRunning = errors.New("control: hark is not running")

// Client talks to the API: a running daemon's over its socket, or this
// process's own handlers (Local).
type Client struct {
	where string // the socket's path, or "in process"
	http  *http.Client
	close func() error
}

// Dial returns a client of the socket at path; nothing is opened until a
// call.
func Dial(path string) *Client {
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}
	return &Client{where: path, http: &http.Client{Transport: tr}, close: func() error { tr.CloseIdleConnections(); return nil }}
}

// Local returns a client that serves itself h in process, over in-memory
// connections, as the local administrator: what a command uses when no
// daemon runs. Close stops it.
func Local(h http.Handler) *Client {
	ln := listener.NewPipe(nil)
	srv := &http.Server{Handler: h, ConnContext: func(ctx context.Context, _ net.Conn) context.Context {
		return WithIdentity(ctx, Identity{Role: Admin, Via: "in process", UID: -1})
	}}
	var wg sync.WaitGroup
	wg.Go(func() { srv.Serve(ln) })
	tr := &http.Transport{DialContext: ln.DialContext}
	return &Client{where: "in process", http: &http.Client{Transport: tr}, close: func() error {
		tr.CloseIdleConnections()
		err := srv.Close()
		wg.Wait()
		return err
	}}
}

// Close releases the client's connections (and a Local client's server).
func (c *Client) Close() error { return c.close() }

// Remote reports whether the client talks to a running daemon.
func (c *Client) Remote() bool { return c.where != "in process" }

// Error is an error the API answered with.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// Is lets errors.Is match the package's sentinels by the answer's code.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrInvalid:
		return e.Code == "bad_request"
	case ErrNotFound:
		return e.Code == "not_found"
	case ErrConflict:
		return e.Code == "conflict"
	case ErrFull:
		return e.Code == "storage_full"
	case ErrUnavailable:
		return e.Code == "unavailable"
	case ErrForbidden:
		return e.Code == "forbidden" || e.Code == "unauthenticated"
	}
	return false
}

// send makes a request and returns the response when its status is 2xx;
// otherwise the API's error.
func (c *Client) send(ctx context.Context, method, path string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://hark"+path, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return nil, fmt.Errorf("%w (no answer on %s)", ErrNotRunning, c.where)
		}
		return nil, fmt.Errorf("control: %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var ae apiError
	if json.Unmarshal(raw, &ae) != nil || ae.Error == "" {
		ae = apiError{Error: fmt.Sprintf("control: %s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(raw))}
	}
	return nil, &Error{Status: resp.StatusCode, Code: ae.Code, Message: ae.Error}
}

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	resp, err := c.send(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			return fmt.Errorf("control: %s %s: reading the answer: %w", method, path, err)
		}
	}
	return nil
}

// Status asks the daemon how it is.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var s Status
	err := c.do(ctx, http.MethodGet, "/api/v1/status", nil, &s)
	return s, err
}

// SetUpdating tells the daemon an update is (or is no longer) being
// installed, for its LEDs.
func (c *Client) SetUpdating(ctx context.Context, active bool, percent int) error {
	return c.do(ctx, http.MethodPost, "/api/v1/updating", Update{active, percent}, nil)
}

// WaitIdle returns once the daemon's speaker is idle. A daemon that is not
// running is idle: nothing is talking. A daemon that restarts while waited
// on is asked again.
func (c *Client) WaitIdle(ctx context.Context) error {
	for {
		err := c.do(ctx, http.MethodGet, "/api/v1/idle", nil, nil)
		if err == nil || errors.Is(err, ErrNotRunning) {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// Alerts lists the timers, and with all the alarms and reminders too.
func (c *Client) Alerts(ctx context.Context, all bool) ([]Alert, error) {
	var l []Alert
	err := c.do(ctx, http.MethodGet, "/api/v1/alerts?all="+strconv.FormatBool(all), nil, &l)
	return l, err
}

// AddAlert sets a timer, alarm or reminder.
func (c *Client) AddAlert(ctx context.Context, na NewAlert) (Alert, error) {
	var a Alert
	err := c.do(ctx, http.MethodPost, "/api/v1/alerts", na, &a)
	return a, err
}

// CancelAlert silences or cancels one timer, alarm or reminder, by its id
// or its name.
func (c *Client) CancelAlert(ctx context.Context, ref string) error {
	return c.do(ctx, http.MethodDelete, "/api/v1/alerts/"+url.PathEscape(ref), nil, nil)
}

// StopAlerts silences everything that rings, reporting whether anything
// did.
func (c *Client) StopAlerts(ctx context.Context) (bool, error) {
	var s Stopped
	err := c.do(ctx, http.MethodPost, "/api/v1/alerts/stop", nil, &s)
	return s.Stopped, err
}

// SecretNames lists the secrets that are set.
func (c *Client) SecretNames(ctx context.Context) ([]string, error) {
	var l []string
	err := c.do(ctx, http.MethodGet, "/api/v1/secrets", nil, &l)
	return l, err
}

// SetSecret sets one secret.
func (c *Client) SetSecret(ctx context.Context, name, value string) error {
	return c.do(ctx, http.MethodPut, "/api/v1/secrets/"+url.PathEscape(name), SecretValue{Value: value}, nil)
}

// UnsetSecret removes one secret.
func (c *Client) UnsetSecret(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodDelete, "/api/v1/secrets/"+url.PathEscape(name), nil, nil)
}

// Commands lists the commands.
func (c *Client) Commands(ctx context.Context) ([]CommandInfo, error) {
	var l []CommandInfo
	err := c.do(ctx, http.MethodGet, "/api/v1/commands", nil, &l)
	return l, err
}

// MCPServers lists the MCP servers, their state and tools.
func (c *Client) MCPServers(ctx context.Context) ([]MCPServer, error) {
	var l []MCPServer
	err := c.do(ctx, http.MethodGet, "/api/v1/mcp", nil, &l)
	return l, err
}

// Settings lists the settings a user changes.
func (c *Client) Settings(ctx context.Context) ([]Setting, error) {
	var l []Setting
	err := c.do(ctx, http.MethodGet, "/api/v1/settings", nil, &l)
	return l, err
}

// SetSetting keeps a setting for the next start.
func (c *Client) SetSetting(ctx context.Context, key, value string) error {
	return c.do(ctx, http.MethodPut, "/api/v1/settings/"+url.PathEscape(key), SettingValue{Value: value}, nil)
}

// Restart starts the daemon again.
func (c *Client) Restart(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/api/v1/restart", nil, nil)
}

// WebCode is the web page's setup code, while it waits for its first visit.
func (c *Client) WebCode(ctx context.Context) (WebCode, error) {
	var w WebCode
	err := c.do(ctx, http.MethodGet, "/api/v1/web/code", nil, &w)
	return w, err
}

// ResetWeb forgets the web page's password and returns the new setup code.
func (c *Client) ResetWeb(ctx context.Context) (WebCode, error) {
	var w WebCode
	err := c.do(ctx, http.MethodPost, "/api/v1/web/reset", nil, &w)
	return w, err
}

// Models asks the model server at host for its models.
func (c *Client) Models(ctx context.Context, host string) (ModelServer, error) {
	var ms ModelServer
	err := c.do(ctx, http.MethodGet, "/api/v1/models?host="+url.QueryEscape(host), nil, &ms)
	return ms, err
}

// TryModel asks model on the server at host the test question.
func (c *Client) TryModel(ctx context.Context, host, model string) (Trial, error) {
	var tr Trial
	err := c.do(ctx, http.MethodPost, "/api/v1/models/try", ModelTrial{Host: host, Model: model}, &tr)
	return tr, err
}

// Turns lists the last turns of talk, oldest first.
func (c *Client) Turns(ctx context.Context) ([]Turn, error) {
	var l []Turn
	err := c.do(ctx, http.MethodGet, "/api/v1/turns", nil, &l)
	return l, err
}

// Facts lists what the assistant remembers.
func (c *Client) Facts(ctx context.Context) ([]Fact, error) {
	var l []Fact
	err := c.do(ctx, http.MethodGet, "/api/v1/facts", nil, &l)
	return l, err
}

// Forget deletes one fact.
func (c *Client) Forget(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/api/v1/facts/"+url.PathEscape(id), nil, nil)
}

// Conversations lists the dialogue by conversation, newest first.
func (c *Client) Conversations(ctx context.Context) ([]Conversation, error) {
	var l []Conversation
	err := c.do(ctx, http.MethodGet, "/api/v1/conversations", nil, &l)
	return l, err
}

// DeleteConversation deletes one conversation.
func (c *Client) DeleteConversation(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/api/v1/conversations/"+url.PathEscape(id), nil, nil)
}

// Logs returns the daemon's last n log lines.
func (c *Client) Logs(ctx context.Context, n int) ([]string, error) {
	var l LogLines
	err := c.do(ctx, http.MethodGet, "/api/v1/logs?lines="+strconv.Itoa(n), nil, &l)
	return l.Lines, err
}

// Ask asks a typed question and calls say for each sentence as it
// arrives. It returns the engine's result as JSON, and the reply's error,
// if it failed, as a *HintError.
func (c *Client) Ask(ctx context.Context, q Question, say func(string)) (json.RawMessage, error) {
	return c.AskNoting(ctx, q, say, nil)
}

// AskNoting is Ask, calling notice (unless nil) with each line for the
// asker that is no part of the answer: that the model is loading, or that
// the server answers others first.
func (c *Client) AskNoting(ctx context.Context, q Question, say, notice func(string)) (json.RawMessage, error) {
	b, err := json.Marshal(q)
	if err != nil {
		return nil, err
	}
	resp, err := c.send(ctx, http.MethodPost, "/api/v1/ask", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for {
		var ev AskEvent
		if err := dec.Decode(&ev); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("control: ask: the answer stopped before its end: %w", err)
		}
		if ev.Sentence != "" {
			say(ev.Sentence)
			continue
		}
		if ev.Notice != "" {
			if notice != nil {
				notice(ev.Notice)
			}
			continue
		}
		if ev.Error != "" {
			return ev.Result, &HintError{Err: errors.New(ev.Error), Hint: ev.Hint}
		}
		return ev.Result, nil
	}
}

// Setup runs a command's interactive setup on the other side, with the
// user at io.
func (c *Client) Setup(ctx context.Context, name string, io SetupIO) error {
	pr, pw := ioPipe()
	defer pw.Close()
	resp, err := c.send(ctx, http.MethodPost, "/api/v1/commands/"+url.PathEscape(name)+"/setup", pr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(bufio.NewReader(resp.Body))
	enc := json.NewEncoder(pw)
	for {
		var ev SetupEvent
		if err := dec.Decode(&ev); err != nil {
			return fmt.Errorf("control: setup %s: the conversation stopped before its end: %w", name, err)
		}
		switch {
		case ev.Error != "":
			return errors.New(ev.Error)
		case ev.Done:
			return nil
		case ev.Ask != "":
			a, err := io.Ask(ev.Ask)
			if err != nil {
				return err
			}
			if err := enc.Encode(SetupAnswer{Answer: a}); err != nil {
				return fmt.Errorf("control: setup %s: sending the answer: %w", name, err)
			}
		default:
			io.Say(ev.Say)
		}
	}
}

// ioPipe is io.Pipe, named apart from the io parameter of Setup.
func ioPipe() (*io.PipeReader, *io.PipeWriter) { return io.Pipe() }
