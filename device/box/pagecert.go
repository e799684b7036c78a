package box

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/harkbox/hark/internal/selfsigned"
)

// pageCert is the page's own certificate, served by the listener already
// open (tls.Config.GetCertificate) and issued again, with the same key,
// when the page gets a name it does not cover: the name mDNS claims when
// another machine has the machine's own.
type pageCert struct {
	mu   sync.Mutex // held while a certificate is issued
	spec selfsigned.Spec
	own  int // how many of spec.Hosts are the machine's own names; the claimed ones follow
	cur  atomic.Pointer[tls.Certificate]
}

// maxClaimedNames bounds the names mDNS claimed that the certificate
// covers beside the machine's own: a machine on the LAN that answers for
// each name claimed moves the box on to the next one for as long as it
// likes, and every name kept would be in every handshake.
const maxClaimedNames = 4

// certificate is the page's certificate, made the first time, for the
// machine's name, name.local and [web] names; and its fingerprint.
func (ps pageServing) certificate() (*pageCert, string, error) {
	host, _ := os.Hostname()
	pc := &pageCert{spec: selfsigned.Spec{Dir: filepath.Join(ps.dataDir, "web"), Name: "web", Subject: "hark " + host,
		Hosts: append([]string{host, host + ".local"}, ps.cfg.Names...), Widen: true}}
	pc.own = len(pc.spec.Hosts)
	cert, fp, err := selfsigned.Load(pc.spec)
	if err != nil {
		return nil, "", err
	}
	pc.cur.Store(&cert)
	return pc, fp, nil
}

// config is the listener's TLS configuration: the certificate as it is
// when a connection comes.
func (pc *pageCert) config() *tls.Config {
	return &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return pc.cur.Load(), nil }, MinVersion: tls.VersionTLS12}
}

// cover makes the certificate cover name too, issuing it again when it
// does not, for the machine's own names and the last maxClaimedNames
// claimed; it reports the fingerprint of the one served from now on and
// whether it is new.
func (pc *pageCert) cover(name string) (string, bool, error) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	old := pc.cur.Load()
	if !slices.Contains(pc.spec.Hosts, name) {
		pc.spec.Hosts = append(pc.spec.Hosts, name)
		if extra := len(pc.spec.Hosts) - pc.own - maxClaimedNames; extra > 0 {
			pc.spec.Hosts = slices.Delete(pc.spec.Hosts, pc.own, pc.own+extra)
			pc.spec.Only = true // the names dropped go from the certificate too
		}
	}
	cert, fp, err := selfsigned.Load(pc.spec)
	if err != nil {
		return "", false, err
	}
	if slices.Equal(cert.Certificate[0], old.Certificate[0]) {
		return fp, false, nil
	}
	pc.cur.Store(&cert)
	return fp, true, nil
}
