package network

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"unicode"

	"github.com/harkbox/hark/internal/atomicfile"
)

// Header is what a wpa_supplicant.conf that WiFi creates begins with: the
// control socket wpa_cli talks to, open to the netdev group, and leave
// for wpa_supplicant to save the configuration itself.
const Header = "ctrl_interface=DIR=/run/wpa_supplicant GROUP=netdev\nupdate_config=1\n"

// FieldError is a network name or passphrase that cannot be used; Add
// returns it as a *FieldError so that a form can show Msg by its field.
type FieldError struct {
	Field string // "ssid" or "psk"
	Msg   string // in plain words, without the package's prefix
}

func (e *FieldError) Error() string { return "network: " + e.Msg }

// ErrNotApplied is in the error of an Add whose network was saved but
// whose Apply failed: the file holds the network, wpa_supplicant may not.
var ErrNotApplied = errors.New("network: saved but not applied")

// notApplied is ErrNotApplied with Apply's error.
type notApplied struct{ err error }

func (e *notApplied) Error() string {
	return "network: the Wi-Fi network is saved, but applying it failed: " + strings.TrimPrefix(e.err.Error(), "network: ")
}

func (e *notApplied) Unwrap() []error { return []error{ErrNotApplied, e.err} }

// WiFi is the Wi-Fi networks of a wpa_supplicant configuration file. Its
// methods may be called concurrently; other writers of the file (an
// editor, wpa_supplicant's own save_config) are not locked out.
type WiFi struct {
	// Path is the wpa_supplicant.conf, created by Add with Header if it
	// is missing or empty (its directory must exist).
	Path string
	// Apply makes wpa_supplicant take the new file, after Add wrote it;
	// WPACLI is one. Nil applies nothing.
	Apply func(ctx context.Context) error
	Log   *slog.Logger // nil logs nothing

	mu sync.Mutex // one Add at a time, so none is lost
}

// Add saves a network: ssid is its name (1 to 32 bytes, no control
// characters); psk its passphrase (8 to 63 printable ASCII characters),
// or its key (64 hexadecimal digits), or "" for an open network. A network
// of the same name is replaced, else this one is appended. The file is
// written atomically with mode 0600, then applied.
//
// An ssid or psk that cannot be used is a *FieldError. An Apply that
// fails leaves the file written; its error wraps ErrNotApplied.
func (w *WiFi) Add(ctx context.Context, ssid, psk string) error {
	if err := checkSSID(ssid); err != nil {
		return err
	}
	if err := checkPSK(psk); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("network: add %q: %w", ssid, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	old, err := w.read()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if len(bytes.TrimSpace(old)) == 0 { // missing or empty: wpa_cli needs the control socket
		old = []byte(Header)
	}
	data, replaced := put(old, ssid, block(ssid, psk))
	if err := atomicfile.Write(w.Path, data, 0o600); err != nil {
		return fmt.Errorf("network: save %q: %w", ssid, err)
	}
	w.logger().Info("Wi-Fi network saved", "ssid", ssid, "open", psk == "", "replaced", replaced, "path", w.Path)
	if w.Apply == nil {
		return nil
	}
	if err := w.Apply(ctx); err != nil {
		return &notApplied{err}
	}
	w.logger().Info("Wi-Fi networks applied", "path", w.Path)
	return nil
}

// Remove takes the network of that name out of the file and applies the
// change; a name the file does not hold is a *FieldError.
func (w *WiFi) Remove(ctx context.Context, ssid string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	old, err := w.read()
	if errors.Is(err, fs.ErrNotExist) {
		old, err = nil, nil
	}
	if err != nil {
		return err
	}
	var out strings.Builder
	found := false
	for _, s := range parse(old) {
		if s.block && s.hasSSID && string(s.ssid) == ssid {
			found = true
			continue
		}
		out.WriteString(s.text)
	}
	if !found {
		return &FieldError{"ssid", fmt.Sprintf("no Wi-Fi network called “%s” is kept", ssid)}
	}
	if err := atomicfile.Write(w.Path, []byte(out.String()), 0o600); err != nil {
		return fmt.Errorf("network: forget %q: %w", ssid, err)
	}
	w.logger().Info("Wi-Fi network forgotten", "ssid", ssid, "path", w.Path)
	if w.Apply == nil {
		return nil
	}
	if err := w.Apply(ctx); err != nil {
		return &notApplied{err}
	}
	return nil
}

// Networks lists the names (SSIDs) of the networks in the file, in its
// order; none if there is no file. Passphrases are never read out.
func (w *WiFi) Networks() ([]string, error) {
	w.mu.Lock()
	data, err := w.read()
	w.mu.Unlock()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range parse(data) {
		if s.block && s.hasSSID {
			out = append(out, strings.ToValidUTF8(string(s.ssid), "\uFFFD"))
		}
	}
	return out, nil
}

func (w *WiFi) read() ([]byte, error) {
	data, err := os.ReadFile(w.Path)
	if err != nil {
		return nil, fmt.Errorf("network: read the Wi-Fi networks: %w", err)
	}
	return data, nil
}

func (w *WiFi) logger() *slog.Logger {
	if w.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Log.With("pkg", "network")
}

// WPACLI is an Apply that has wpa_supplicant re-read its configuration:
// `wpa_cli -i iface reconfigure`. Its error names the command and what it
// printed.
func WPACLI(iface string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		args := []string{"-i", iface, "reconfigure"}
		out, err := exec.CommandContext(ctx, "wpa_cli", args...).CombinedOutput()
		said := strings.TrimSpace(string(out))
		if err == nil && strings.HasPrefix(said, "FAIL") {
			err = errors.New("it answered FAIL")
		}
		if err == nil {
			return nil
		}
		if said != "" {
			return fmt.Errorf("network: wpa_cli %s: %w: %s", strings.Join(args, " "), err, said)
		}
		return fmt.Errorf("network: wpa_cli %s: %w", strings.Join(args, " "), err)
	}
}

// MaxSSID is the longest network name, in bytes (IEEE 802.11).
const MaxSSID = 32

func checkSSID(ssid string) error {
	switch {
	case ssid == "":
		return &FieldError{"ssid", "type the network's name (its SSID)"}
	case len(ssid) > MaxSSID:
		return &FieldError{"ssid", fmt.Sprintf("a network's name is at most %d bytes long; this one has %d (letters with accents and emoji take more than one)", MaxSSID, len(ssid))}
	case strings.IndexFunc(ssid, unicode.IsControl) >= 0:
		return &FieldError{"ssid", "the network's name has a control character in it (a tab, a new line or the like)"}
	}
	return nil
}

func checkPSK(psk string) error {
	switch {
	case psk == "":
		return nil
	case len(psk) == 64 && isHex(psk):
		return nil
	case len(psk) == 64:
		return &FieldError{"psk", "a key of 64 characters is written in hexadecimal (0 to 9 and a to f only); a passphrase has 8 to 63 characters"}
	case strings.IndexFunc(psk, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0:
		return &FieldError{"psk", "a passphrase has only letters a to z, digits, spaces and the punctuation of a plain keyboard: no accents, emoji, tabs or new lines"}
	case len(psk) < 8:
		return &FieldError{"psk", fmt.Sprintf("the passphrase is too short: it has %d characters and needs 8 to 63 (or leave it empty for an open network)", len(psk))}
	case len(psk) > 63:
		return &FieldError{"psk", fmt.Sprintf("the passphrase is too long: it has %d characters and may have 8 to 63", len(psk))}
	}
	return nil
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

// block is a network's entry in wpa_supplicant.conf.
//
// The SSID is quoted when it is plain printable ASCII, else written in hex,
// which wpa_supplicant reads byte for byte: a quote, a backslash or a #
// (which older versions take for a comment), a letter with an accent. The
// passphrase is quoted as it is: wpa_supplicant takes everything between
// the first and the last quote, without escapes, and the checks above let
// no new line in. A 64-digit key is written bare, as wpa_supplicant wants.
//
// Every network gets scan_ssid=1: wpa_supplicant then asks for it by name
// in each scan (a directed probe request) as well as listening for it, and
// only so finds a hidden network, which does not say its name. The box
// cannot tell a hidden network from one out of reach (the network page
// takes every network's name typed), and a network may be hidden later;
// the cost, one more probe request per network kept in each scan, and
// saying the names kept to whoever listens, is small for a speaker that
// keeps one or two networks and stays in one home.
func block(ssid, psk string) string {
	var b strings.Builder
	b.WriteString("network={\n\tssid=")
	b.WriteString(encodeSSID(ssid))
	b.WriteString("\n\tscan_ssid=1\n")
	switch {
	case psk == "":
		b.WriteString("\tkey_mgmt=NONE\n")
	case len(psk) == 64 && isHex(psk):
		b.WriteString("\tpsk=" + psk + "\n")
	default:
		b.WriteString("\tpsk=\"" + psk + "\"\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func encodeSSID(ssid string) string {
	for i := 0; i < len(ssid); i++ {
		if c := ssid[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '#' {
			return hex.EncodeToString([]byte(ssid))
		}
	}
	return `"` + ssid + `"`
}

// segment is a run of lines of wpa_supplicant.conf: a network={...} block,
// or the lines between blocks, kept as they are.
type segment struct {
	text    string
	block   bool
	ssid    []byte
	hasSSID bool
}

// parse splits a wpa_supplicant.conf into segments; joined, they are the
// file again.
func parse(data []byte) []segment {
	var out []segment
	var cur *segment
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		trimmed := strings.TrimSpace(string(line))
		switch {
		case cur == nil && trimmed == "network={":
			out = append(out, segment{block: true})
			cur = &out[len(out)-1]
		case cur == nil && (len(out) == 0 || out[len(out)-1].block):
			out = append(out, segment{})
		case cur != nil && trimmed == "}":
			cur.text += string(line)
			cur = nil
			continue
		case cur != nil && strings.HasPrefix(trimmed, "ssid="):
			cur.ssid, cur.hasSSID = decodeSSID(strings.TrimPrefix(trimmed, "ssid="))
		}
		if cur != nil {
			cur.text += string(line)
		} else {
			out[len(out)-1].text += string(line)
		}
	}
	return out
}

// decodeSSID reads an ssid's value as wpa_supplicant does: "quoted" (the
// text between the first and the last quote), P"printf-escaped", or hex.
func decodeSSID(v string) ([]byte, bool) {
	switch {
	case strings.HasPrefix(v, `"`):
		end := strings.LastIndexByte(v, '"')
		if end == 0 {
			return nil, false
		}
		return []byte(v[1:end]), true
	case strings.HasPrefix(v, `P"`):
		end := strings.LastIndexByte(v, '"')
		if end == 1 {
			return nil, false
		}
		return unescape(v[2:end]), true
	}
	if i := strings.IndexByte(v, '#'); i >= 0 {
		v = v[:i]
	}
	b, err := hex.DecodeString(strings.TrimSpace(v))
	return b, err == nil
}

// unescape decodes wpa_supplicant's printf escapes: \\ \" \n \r \t \e,
// \xHH and octal \OOO.
func unescape(s string) []byte {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			out = append(out, s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'e':
			out = append(out, 0x1b)
		case 'x':
			if i+2 < len(s) {
				if b, err := hex.DecodeString(s[i+1 : i+3]); err == nil {
					out = append(out, b[0])
					i += 2
					continue
				}
			}
			out = append(out, 'x')
		default:
			if c >= '0' && c <= '7' {
				v := 0
				n := 0
				for ; n < 3 && i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '7'; n++ {
					v = v*8 + int(s[i+n]-'0')
				}
				out = append(out, byte(v))
				i += n - 1
				continue
			}
			out = append(out, c) // \\ and \" and anything else: the character
		}
	}
	return out
}

// put replaces the first block of the same SSID with b, dropping any
// later one, or appends b; it reports whether one was replaced.
func put(data []byte, ssid string, b string) ([]byte, bool) {
	var out strings.Builder
	replaced := false
	for _, s := range parse(data) {
		if s.block && s.hasSSID && string(s.ssid) == ssid {
			if !replaced {
				out.WriteString(b)
				replaced = true
			}
			continue
		}
		out.WriteString(s.text)
	}
	if !replaced {
		text := out.String()
		if text != "" && !strings.HasSuffix(text, "\n") {
			out.WriteString("\n")
		}
		if text != "" && !strings.HasSuffix(text, "\n\n") {
			out.WriteString("\n")
		}
		out.WriteString(b)
	}
	return []byte(out.String()), replaced
}
