package control

import (
	"context"
	"fmt"
	"net"
	"os"
)

// Role is what an identity may do.
type Role int

const (
	// Nobody may do nothing: a local user who is neither root nor the
	// daemon's own user.
	Nobody Role = iota
	// Admin is the local administrator: every endpoint.
	Admin
)

// Identity is who made a request, established when its connection was
// accepted.
type Identity struct {
	Role Role
	// Via says how it was established: "peer credentials" or "in process".
	Via string
	// UID is the peer's user id on the unix socket; -1 in process.
	UID int
}

func (id Identity) String() string {
	if id.UID >= 0 {
		return fmt.Sprintf("uid %d (%s)", id.UID, id.Via)
	}
	return id.Via
}

type identityKey struct{}

// WithIdentity returns ctx carrying id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity ctx carries.
func IdentityFrom(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}

// peerIdentity reads the credentials of the process at the other end of a
// unix socket connection: root and this process's own user are the
// administrator, anyone else nobody. A connection whose credentials cannot
// be read carries no identity, and every request on it is refused.
func peerIdentity(ctx context.Context, c net.Conn) context.Context {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return ctx
	}
	uid, err := peerUID(uc)
	if err != nil {
		return ctx
	}
	role := Nobody
	if uid == 0 || uid == os.Getuid() {
		role = Admin
	}
	return WithIdentity(ctx, Identity{Role: role, Via: "peer credentials", UID: uid})
}
