package redact

import "strings"

// addresses puts placeholders for the passwords in the addresses in s,
// user:password@host after a scheme ("http://", "mqtt://", any) or
// alone, and adds their kinds to kinds. The scheme, the user and the host
// stay readable ("http://admin:[SECRET_1]@host:11434"), and the password
// is not read as an e-mail address. The password runs to the last "@" of
// the address's authority (before its path, query or fragment), as
// addresses are parsed; one that is a placeholder already stays. Without
// a scheme the user must be a name (letters among digits, ".", "-", "_",
// "~", "%", "+": not "10:30@home"), and what reads as an e-mail address
// after it is left to the e-mail scanner ("mailto:bob@example.com"). With
// nothing replaced it returns s itself.
func (r *Redactor) addresses(s string, kinds []Kind) (string, []Kind) {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		schemed := i >= 3 && s[i-3:i] == "://" && schemeBefore(s, i-3)
		if !schemed && !nameStart(s, i) {
			continue
		}
		if !schemed {
			// A name, then ":", or no address starts here.
			u := i
			letter := false
			for u < len(s) && nameByte(s[u]) {
				letter = letter || isLetter(s[u])
				u++
			}
			if u >= len(s) || s[u] != ':' || !letter {
				i = u - 1
				continue
			}
		}
		end := i
		for end < len(s) && authorityByte(s[end]) {
			end++
		}
		colon := strings.IndexByte(s[i:end], ':')
		if colon < 0 {
			i = max(i, end-1)
			continue
		}
		colon += i
		at := -1
		for k := end - 1; k > colon; k-- {
			if s[k] == '@' && k+1 < end && hostStart(s[k+1]) {
				at = k
				break
			}
		}
		pw := ""
		if at >= 0 {
			pw = s[colon+1 : at]
		}
		switch {
		case at < 0 || strings.IndexByte(s[i:colon], '@') >= 0:
			// No user info ("host:port"), or a user with an "@".
		case pw == "" || placeholderAt(s, colon+1) == len(pw):
		case !schemed && emailFrom(s, colon+1):
		default:
			if b.Len() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last : colon+1])
			b.WriteString(r.placeholder(Secret, pw))
			kinds = append(kinds, Secret)
			last = at
		}
		i = max(i, end-1)
	}
	if b.Len() == 0 {
		return s, kinds
	}
	b.WriteString(s[last:])
	return b.String(), kinds
}

// schemeBefore reports whether s[:j] ends in a scheme: a letter, then
// letters, digits, "+", "-" and ".".
func schemeBefore(s string, j int) bool {
	letter := false
	for k := j - 1; k >= 0; k-- {
		c := s[k]
		if !isLetter(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			break
		}
		letter = letter || isLetter(c)
	}
	return letter
}

// nameStart reports whether a user's name may start at s[i] of an
// address without a scheme: a name's byte, after none, nor after ":",
// "/", "@" or "\".
func nameStart(s string, i int) bool {
	if !nameByte(s[i]) {
		return false
	}
	if i == 0 {
		return true
	}
	c := s[i-1]
	return !nameByte(c) && c != ':' && c != '/' && c != '@' && c != '\\'
}

// nameByte reports whether c may be in a user's name without a scheme.
func nameByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '.' || c == '-' || c == '_' || c == '~' || c == '%' || c == '+'
}

// emailFrom reports whether an e-mail address starts at s[i] (emailAt).
func emailFrom(s string, i int) bool {
	end, _ := emailAt(s, i)
	return end >= 0
}

// authorityByte reports whether c may be in an address's authority as
// written in text: not a space or a control, a quote, a backslash (a JSON
// escape), nor the start of the path, query or fragment.
func authorityByte(c byte) bool {
	switch c {
	case '"', '\'', '\\', '/', '?', '#', '<', '>', '`', 0x7f:
		return false
	}
	return c > ' '
}

// hostStart reports whether c may start a host: a letter, a digit, an
// IPv6 address's bracket, a byte of a name that is not ASCII.
func hostStart(c byte) bool { return isLetter(c) || isDigit(c) || c == '[' || c >= 0x80 }
