// Package bundletest makes real, signed RAUC bundles for tests and checks
// them with the real rauc: a throwaway certificate authority, bundles signed
// by it (or unsigned, or tampered with), rauc info and a full payload check,
// and a rauc service on a private D-Bus bus that installs into file slots.
//
// The update packages' tests and the Hark agent's test double use it. The
// helpers that build bundles take a testing.TB and skip the test, naming the
// Debian package, when rauc or squashfs-tools is not installed; Info and
// Verify return errors, with rauc's own message when rauc refuses a bundle.
package bundletest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a test certificate authority: a self-signed root and one signing
// certificate it issued, as PEM files.
type CA struct {
	Keyring string // the root certificate: what RAUC's [keyring] path names
	Cert    string // the signing certificate, for rauc bundle --cert
	Key     string // its private key (PKCS #8, unencrypted), for --key
}

// NewCA makes a certificate authority called name and writes
// name.ca.pem, name.cert.pem and name.key.pem in dir. name must be usable
// as a file name; it also goes into the certificates' common names.
//
// The signing certificate passes RAUC 1.8's verification with the default
// purpose (OpenSSL's smimesign, what rauc uses when system.conf sets no
// check-purpose) and with check-purpose=codesign: its key usage is
// digitalSignature and its extended key usage is both codeSigning and
// emailProtection. With codeSigning alone, the default check refuses it
// ("Verify error: unsuitable certificate purpose"). The root is a CA
// (basicConstraints CA:TRUE, keyCertSign) with no extended key usage. Both
// are valid from an hour ago for 30 days.
func NewCA(t testing.TB, dir, name string) *CA {
	t.Helper()
	now := time.Now()
	rootKey := newKey(t)
	root := &x509.Certificate{
		SerialNumber:          serial(t),
		Subject:               pkix.Name{CommonName: name + " test CA", Organization: []string{"Hark tests"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(30 * 24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	rootDER, err := x509.CreateCertificate(rand.Reader, root, root, &rootKey.PublicKey, rootKey)
	if err != nil {
		t.Fatalf("bundletest: create CA certificate: %v", err)
	}
	root, err = x509.ParseCertificate(rootDER)
	if err != nil {
		t.Fatalf("bundletest: parse CA certificate: %v", err)
	}

	signKey := newKey(t)
	signer := &x509.Certificate{
		SerialNumber:          serial(t),
		Subject:               pkix.Name{CommonName: name + " test signer", Organization: []string{"Hark tests"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(30 * 24 * time.Hour),
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning, x509.ExtKeyUsageEmailProtection},
	}
	signDER, err := x509.CreateCertificate(rand.Reader, signer, root, &signKey.PublicKey, rootKey)
	if err != nil {
		t.Fatalf("bundletest: create signing certificate: %v", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(signKey)
	if err != nil {
		t.Fatalf("bundletest: encode signing key: %v", err)
	}

	ca := &CA{
		Keyring: filepath.Join(dir, name+".ca.pem"),
		Cert:    filepath.Join(dir, name+".cert.pem"),
		Key:     filepath.Join(dir, name+".key.pem"),
	}
	writePEM(t, ca.Keyring, "CERTIFICATE", rootDER, 0o644)
	writePEM(t, ca.Cert, "CERTIFICATE", signDER, 0o644)
	writePEM(t, ca.Key, "PRIVATE KEY", keyDER, 0o600)
	return ca
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("bundletest: generate key: %v", err)
	}
	return k
}

func serial(t testing.TB) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		t.Fatalf("bundletest: serial number: %v", err)
	}
	return n
}

func writePEM(t testing.TB, path, typ string, der []byte, perm os.FileMode) {
	t.Helper()
	b := pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
	if err := os.WriteFile(path, b, perm); err != nil {
		t.Fatalf("bundletest: %v", err)
	}
}
