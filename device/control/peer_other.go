//go:build !linux

package control

import (
	"errors"
	"net"
)

// peerUID is not implemented off Linux: every request on the socket is
// refused.
func peerUID(*net.UnixConn) (int, error) {
	return 0, errors.New("control: peer credentials are read on Linux only")
}
