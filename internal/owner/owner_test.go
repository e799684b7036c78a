package owner

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	if err := CheckDir(dir); err != nil {
		t.Errorf("a private directory: %v", err)
	}
	open := filepath.Join(dir, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	if err := CheckDir(open); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("a directory anyone may write: %v", err)
	}
	if os.Geteuid() == 0 {
		theirs := filepath.Join(dir, "theirs")
		os.Mkdir(theirs, 0o700)
		os.Chown(theirs, 1234, 1234)
		if err := CheckDir(theirs); !errors.Is(err, ErrNotPrivate) {
			t.Errorf("another user's directory: %v", err)
		}
	}
}

func TestReadFileRefusesLinksAndOpenFiles(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "secrets.key")
	os.WriteFile(key, []byte("k"), 0o600)
	if b, err := ReadFile(key); err != nil || string(b) != "k" {
		t.Errorf("a private key: %q %v", b, err)
	}
	link := filepath.Join(dir, "link.key")
	os.Symlink(key, link)
	if _, err := ReadFile(link); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("a key through a link: %v", err)
	}
	os.Chmod(key, 0o644)
	if _, err := ReadFile(key); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("a key anyone may read: %v", err)
	}
	log := filepath.Join(dir, "hark.log")
	target := filepath.Join(dir, "elsewhere")
	os.Symlink(target, log)
	if _, err := OpenAppend(log); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("a log that is a link: %v", err)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Error("the link's target was created")
	}
}
