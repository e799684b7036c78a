package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// ErrNotRunning reports that no daemon answers on the socket.
var ErrNotRunning = errors.New("hark is not running")

// Client talks to a running daemon's control socket.
type Client struct {
	path string
	http *http.Client
}

// Dial returns a client of the socket at path; nothing is opened until a
// call.
func Dial(path string) *Client {
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}
	return &Client{path: path, http: &http.Client{Transport: tr}}
}

func (c *Client) do(ctx context.Context, method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://hark"+path, rd)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return fmt.Errorf("%w (no answer on %s)", ErrNotRunning, c.path)
		}
		return fmt.Errorf("control %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("control %s: %s: %s", path, resp.Status, bytes.TrimSpace(msg))
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			return fmt.Errorf("control %s: %w", path, err)
		}
	}
	return nil
}

// Status asks the daemon how it is.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var s Status
	err := c.do(ctx, http.MethodGet, "/status", nil, &s)
	return s, err
}

// SetUpdating tells the daemon an update is (or is no longer) being
// installed, for its LEDs.
func (c *Client) SetUpdating(ctx context.Context, active bool, percent int) error {
	return c.do(ctx, http.MethodPost, "/updating", Update{active, percent}, nil)
}

// WaitIdle returns once the daemon's speaker is idle. A daemon that is not
// running is idle: nothing is talking. A daemon that restarts while waited
// on is asked again.
func (c *Client) WaitIdle(ctx context.Context) error {
	for {
		err := c.do(ctx, http.MethodGet, "/idle", nil, nil)
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
