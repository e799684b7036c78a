//go:build !linux

package mdns

import "net"

// hearOnlyJoined does nothing: the box runs Linux; elsewhere (a
// developer's machine) a socket hears what that system gives it.
func hearOnlyJoined(*net.UDPConn, bool) error { return nil }
