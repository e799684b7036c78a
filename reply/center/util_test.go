package center

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
)

func errorsAs(err error, target any) bool { return errors.As(err, target) }

func netListen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

func newTestServer(h http.Handler) *httptest.Server { return httptest.NewServer(h) }
