package center

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
	"time"

	"github.com/harkbox/hark/internal/atomicfile"
)

// Certificate is the center's own TLS certificate, kept in dir
// (center.crt, center.key) and made, self-signed, the first time. Nodes
// trust it by its fingerprint, which `hark center nodes add` prints.
func Certificate(dir string) (tls.Certificate, string, error) {
	crt, key := filepath.Join(dir, "center.crt"), filepath.Join(dir, "center.key")
	c, err := tls.LoadX509KeyPair(crt, key)
	if errors.Is(err, fs.ErrNotExist) {
		if err := makeCertificate(crt, key); err != nil {
			return tls.Certificate{}, "", err
		}
		c, err = tls.LoadX509KeyPair(crt, key)
	}
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("center: certificate: %w", err)
	}
	return c, Fingerprint(c.Certificate[0]), nil
}

// Fingerprint is how a node pins a certificate: "sha256:" and the hex of
// the SHA-256 of its DER.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return fmt.Sprintf("sha256:%x", sum)
}

func makeCertificate(crtPath, keyPath string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("center: certificate key: %w", err)
	}
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	host, _ := os.Hostname()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "hark center " + host},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(20, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{host, "localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("center: certificate: %w", err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return fmt.Errorf("center: certificate key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(crtPath), 0o700); err != nil {
		return fmt.Errorf("center: %w", err)
	}
	if err := atomicfile.Write(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		return fmt.Errorf("center: certificate key: %w", err)
	}
	if err := atomicfile.Write(crtPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return fmt.Errorf("center: certificate: %w", err)
	}
	return nil
}
