package mdns

import (
	"net"

	"golang.org/x/sys/unix"
)

// hearOnlyJoined makes c hear the groups it joined itself, on the
// interfaces it joined them on. Linux otherwise hands a socket bound to
// a group every packet for that group that any socket on the machine
// joined, whatever the interface it came in on.
func hearOnlyJoined(c *net.UDPConn, v6 bool) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	level, opt := unix.IPPROTO_IP, unix.IP_MULTICAST_ALL
	if v6 {
		level, opt = unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_ALL
	}
	var serr error
	if err := raw.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), level, opt, 0) }); err != nil {
		return err
	}
	return serr
}
