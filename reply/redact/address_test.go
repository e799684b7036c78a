package redact

import (
	"slices"
	"strings"
	"testing"
)

// The password of an address (scheme://user:password@host) is hidden; the
// scheme, the user and the host stay readable, and the address is not
// taken for an e-mail address.
func TestAddressPasswords(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://admin:hunter2@host:11434", "http://admin:[SECRET_1]@host:11434"},
		{"ftp://bob:pw@host", "ftp://bob:[SECRET_1]@host"},
		{"https://me:s3cr3t@nas.lan/share?x=1", "https://me:[SECRET_1]@nas.lan/share?x=1"},
		{"the broker is mqtt://hark:plum-tree@10.0.0.5:1883 now", "the broker is mqtt://hark:[SECRET_1]@10.0.0.5:1883 now"},
		{"camera rtsp://viewer:p@ss:w0rd@cam.lan:554/stream", "camera rtsp://viewer:[SECRET_1]@cam.lan:554/stream"},
		{"'ws://u:pw4@x.lan' and 'wss://u:pw4@y.lan'", "'ws://u:[SECRET_1]@x.lan' and 'wss://u:[SECRET_1]@y.lan'"},
		{`{"url": "gopher://u:p%40w@x.lan/m"}`, `{"url": "gopher://u:[SECRET_1]@x.lan/m"}`},
		{"http://:onlypw@host", "http://:[SECRET_1]@host"},
		// Without a scheme: a user's name, then the password.
		{`host "admin:hunter2@bad host:11434"`, `host "admin:[SECRET_1]@bad host:11434"`},
		{"admin:pw4@[::1]:11434", "admin:[SECRET_1]@[::1]:11434"},
		// Not a password: no user info, a port, an e-mail in a query or
		// after a scheme without "//", a time.
		{"mailto:bob@example.com", "mailto:[EMAIL_1]"},
		{"http://host:11434/api", "http://host:11434/api"},
		{"http://ollama@host:11434", "http://ollama@host:11434"},
		{"http://host:8080/?to=a@b.io", "http://host:8080/?to=[EMAIL_1]"},
		{"time 10:30@home", "time 10:30@home"},
	}
	for _, tt := range tests {
		r := New()
		got, kinds := r.Redact(tt.in)
		if got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(tt.want, "[SECRET_1]") && !slices.Contains(kinds, Secret) {
			t.Errorf("Redact(%q): kinds %v, want a secret", tt.in, kinds)
		}
		if again, _ := r.Redact(got); again != got {
			t.Errorf("redacting %q twice gave %q", got, again)
		}
		if back := r.Restore(got); back != tt.in && !strings.Contains(tt.in, "@b.io") {
			t.Errorf("Restore(%q) = %q, want %q", got, back, tt.in)
		}
	}
}

func FuzzAddressPasswords(f *testing.F) {
	f.Add("http://admin:hunter2@host:11434 and ftp://bob:pw@host")
	f.Add("x://a:b@c@d://e:f@g h://:@i")
	f.Fuzz(func(t *testing.T, s string) {
		r := New()
		once, _ := r.Redact(s)
		if twice, _ := r.Redact(once); once != twice {
			t.Errorf("redacting twice changed %q to %q", once, twice)
		}
	})
}
