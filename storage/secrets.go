package storage

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/harkbox/hark/internal/atomicfile"
	"github.com/harkbox/hark/internal/owner"
)

// Secrets keeps commands' credentials (API keys, tokens) encrypted at rest
// with AES-256-GCM. The key lives in a file of its own, secrets.key in the
// data directory unless placed elsewhere: a copy of the database alone does
// not give the secrets away. Values are never logged.
type Secrets struct {
	db      *DB
	keyPath string
	once    sync.Once
	aead    cipher.AEAD
	err     error
}

// Secrets returns the secrets of db, keyed by the file at keyPath ("" for
// secrets.key in the data directory), which is created on first use.
func (db *DB) Secrets(keyPath string) *Secrets {
	if keyPath == "" {
		keyPath = filepath.Join(db.dir, "secrets.key")
	}
	return &Secrets{db: db, keyPath: keyPath}
}

const secretPrefix = "secret/"

// ErrKeyMissing reports a secrets key that is gone or damaged while
// secrets encrypted with it are stored: they cannot be read, and a new key
// is not made silently.
var ErrKeyMissing = errors.New("storage: the secrets key is missing or damaged")

// count is how many secrets are stored.
func (s *Secrets) count() (int, error) {
	n := 0
	err := s.db.scan(context.Background(), "count secrets", secretPrefix, func(string, []byte) error {
		n++
		return nil
	})
	return n, err
}

func (s *Secrets) cipher() (cipher.AEAD, error) {
	s.once.Do(func() {
		key, err := owner.ReadFile(s.keyPath) // never a link, nor another user's file
		if errors.Is(err, os.ErrNotExist) {
			// A new key only for a store without secrets: with secrets
			// already stored, a new key would leave them undecryptable.
			var n int
			n, err = s.count()
			if err == nil && n > 0 {
				s.err = fmt.Errorf("storage: secrets key %s is missing but %d secrets are stored: %w (restore the key file, or hark secrets unset each and set them again)", s.keyPath, n, ErrKeyMissing)
				return
			}
			if err == nil {
				key = make([]byte, 32)
				rand.Read(key)
				err = atomicfile.Write(s.keyPath, key, 0o600)
			}
		}
		if err != nil {
			s.err = fmt.Errorf("storage: secrets key %s: %w", s.keyPath, err)
			return
		}
		if len(key) != 32 {
			s.err = fmt.Errorf("storage: secrets key %s: %d bytes, want 32: %w", s.keyPath, len(key), ErrKeyMissing)
			return
		}
		block, err := aes.NewCipher(key)
		if err == nil {
			s.aead, err = cipher.NewGCM(block)
		}
		s.err = err
	})
	return s.aead, s.err
}

// Set stores value under name, encrypted.
func (s *Secrets) Set(ctx context.Context, name, value string) error {
	aead, err := s.cipher()
	if err != nil {
		return err
	}
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	sealed := aead.Seal(nonce, nonce, []byte(value), []byte(name))
	return s.db.put(ctx, "write secret "+name, secretPrefix+name, sealed)
}

// Get returns the value of name, or "" when it is not set.
func (s *Secrets) Get(ctx context.Context, name string) (string, error) {
	var sealed []byte
	ok, err := s.db.get(ctx, "read secret "+name, secretPrefix+name, &sealed)
	if err != nil || !ok {
		return "", err
	}
	aead, err := s.cipher()
	if err != nil {
		return "", err
	}
	if len(sealed) < aead.NonceSize() {
		return "", fmt.Errorf("storage: secret %s is corrupt", name)
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(name))
	if err != nil {
		return "", fmt.Errorf("storage: secret %s cannot be decrypted with %s (was the key replaced?)", name, s.keyPath)
	}
	return string(plain), nil
}

// Unset removes name.
func (s *Secrets) Unset(ctx context.Context, name string) error {
	return s.db.del(ctx, "delete secret "+name, secretPrefix+name)
}

// Names lists the secrets that are set, never their values.
func (s *Secrets) Names(ctx context.Context) ([]string, error) {
	var out []string
	err := s.db.scan(ctx, "list secrets", secretPrefix, func(key string, _ []byte) error {
		out = append(out, strings.TrimPrefix(key, secretPrefix))
		return nil
	})
	slices.Sort(out)
	return out, err
}

// Seal encrypts plain with the secrets key, for a value kept elsewhere in
// the store (a remembered secret).
func (s *Secrets) Seal(plain string) ([]byte, error) {
	aead, err := s.cipher()
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	return aead.Seal(nonce, nonce, []byte(plain), []byte("sealed")), nil
}

// Unseal decrypts what Seal returned.
func (s *Secrets) Unseal(sealed []byte) (string, error) {
	aead, err := s.cipher()
	if err != nil {
		return "", err
	}
	if len(sealed) < aead.NonceSize() {
		return "", errors.New("storage: sealed value too short")
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte("sealed"))
	if err != nil {
		return "", fmt.Errorf("storage: unseal: %w", err)
	}
	return string(plain), nil
}
