package center

import (
	"crypto/tls"
	"fmt"
	"os"

	"github.com/harkbox/hark/internal/selfsigned"
)

// Certificate is the center's own TLS certificate, kept in dir
// (center.crt, center.key) and made, self-signed, the first time. Nodes
// trust it by its fingerprint, which `hark center nodes add` prints.
func Certificate(dir string) (tls.Certificate, string, error) {
	host, _ := os.Hostname()
	c, fp, err := selfsigned.Load(selfsigned.Spec{Dir: dir, Name: "center", Subject: "hark center " + host, Hosts: []string{host}})
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("center: certificate: %w", err)
	}
	return c, fp, nil
}

// Fingerprint is how a node pins a certificate: "sha256:" and the hex of
// the SHA-256 of its DER.
func Fingerprint(der []byte) string { return selfsigned.Fingerprint(der) }
