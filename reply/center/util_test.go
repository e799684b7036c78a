package center

import (
	"errors"
	"net"
)

func errorsAs(err error, target any) bool { return errors.As(err, target) }

func netListen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
