// Package selfsigned keeps a machine's own TLS certificate: made, signed by
// itself, the first time it is asked for, and kept (the key readable by its
// owner only). Clients trust it by its fingerprint: the command center's
// nodes pin it, and a person compares it with what the box shows and says
// when the browser warns.
package selfsigned

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/harkbox/hark/internal/atomicfile"
	"github.com/harkbox/hark/internal/owner"
)

// Spec is the certificate to make.
type Spec struct {
	// Dir keeps Name.crt and Name.key.
	Dir, Name string
	// Subject is the certificate's common name.
	Subject string
	// Hosts are the names and addresses it is for; localhost and the
	// loopback addresses always are.
	Hosts []string
	// Widen issues the certificate again, with the key kept, when the
	// one kept does not cover every one of Hosts: the new one covers its
	// names and Hosts. Clients that pin the old one's fingerprint no
	// longer trust the new one, so a certificate that is pinned (the
	// center's) is not widened.
	Widen bool
	// Only, with Widen, issues the certificate again for Hosts alone,
	// dropping the names of the one kept that Hosts no longer has.
	Only bool
}

// Load returns the certificate, making it the first time, and its
// fingerprint.
func Load(s Spec) (tls.Certificate, string, error) {
	crt, key := filepath.Join(s.Dir, s.Name+".crt"), filepath.Join(s.Dir, s.Name+".key")
	c, err := load(crt, key)
	if errors.Is(err, fs.ErrNotExist) {
		if err := s.make(crt, key, nil); err != nil {
			return tls.Certificate{}, "", err
		}
		c, err = load(crt, key)
	}
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("selfsigned: %w", err)
	}
	if s.Widen && !covers(c.Leaf, s.Hosts) {
		k, ok := c.PrivateKey.(*ecdsa.PrivateKey)
		if !ok {
			return tls.Certificate{}, "", fmt.Errorf("selfsigned: widen %s: its key is not ECDSA", crt)
		}
		if !s.Only {
			for _, ip := range c.Leaf.IPAddresses {
				s.Hosts = append(s.Hosts, ip.String())
			}
			s.Hosts = append(s.Hosts, c.Leaf.DNSNames...)
		}
		if err := s.make(crt, key, k); err != nil {
			return tls.Certificate{}, "", err
		}
		if c, err = load(crt, key); err != nil {
			return tls.Certificate{}, "", fmt.Errorf("selfsigned: %w", err)
		}
	}
	return c, Fingerprint(c.Certificate[0]), nil
}

// covers reports whether cert is for every one of hosts.
func covers(cert *x509.Certificate, hosts []string) bool {
	for _, h := range hosts {
		if h != "" && cert.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

// load reads the pair, the key only from a private file of this user's.
func load(crtPath, keyPath string) (tls.Certificate, error) {
	key, err := owner.ReadFile(keyPath)
	if err != nil {
		return tls.Certificate{}, err
	}
	crt, err := os.ReadFile(crtPath)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(crt, key)
}

// Fingerprint is how a certificate is pinned: "sha256:" and the hex of the
// SHA-256 of its DER.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return fmt.Sprintf("sha256:%x", sum)
}

// make writes a certificate for s with key, or with a new key, written
// too, when key is nil.
func (s Spec) make(crtPath, keyPath string, key *ecdsa.PrivateKey) error {
	fresh := key == nil
	if fresh {
		var err error
		if key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			return fmt.Errorf("selfsigned: key: %w", err)
		}
	}
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: s.Subject},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(20, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	for _, h := range s.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			if !slices.ContainsFunc(tmpl.IPAddresses, ip.Equal) {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			}
		} else if h != "" && !slices.Contains(tmpl.DNSNames, h) {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("selfsigned: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(crtPath), 0o700); err != nil {
		return fmt.Errorf("selfsigned: %w", err)
	}
	if fresh {
		kder, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			return fmt.Errorf("selfsigned: key: %w", err)
		}
		if err := atomicfile.Write(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
			return fmt.Errorf("selfsigned: key: %w", err)
		}
	}
	if err := atomicfile.Write(crtPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return fmt.Errorf("selfsigned: %w", err)
	}
	return nil
}
