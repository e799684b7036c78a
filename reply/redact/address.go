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

// queries puts placeholders for the credentials in the queries of the
// addresses in s ("?api_key=[SECRET_1]&v=2"): the values of the
// parameters queryCredential names, and adds their kinds to kinds: an address's query is where
// a token travels when there is no password. The other parameters stay.
// With nothing replaced it returns s itself.
func (r *Redactor) queries(s string, kinds []Kind) (string, []Kind) {
	if strings.IndexByte(s, '?') < 0 || !strings.Contains(s, "://") {
		return s, kinds
	}
	var b strings.Builder
	last := 0
	for i := 3; i <= len(s); i++ {
		if s[i-3:i] != "://" || !schemeBefore(s, i-3) {
			continue
		}
		end := i
		for end < len(s) && urlByte(s[end]) {
			end++
		}
		q := strings.IndexByte(s[i:end], '?')
		for p := i + q + 1; q >= 0 && p < end; {
			n := strings.IndexByte(s[p:end], '&')
			if n < 0 {
				n = end - p
			}
			key, value, _ := strings.Cut(s[p:p+n], "=")
			if at := p + len(key) + 1; value != "" && queryCredential(key) && placeholderAt(s, at) != len(value) {
				if b.Len() == 0 {
					b.Grow(len(s))
				}
				b.WriteString(s[last:at])
				b.WriteString(r.placeholder(Secret, value))
				kinds = append(kinds, Secret)
				last = p + n
			}
			p += n + 1
		}
		i = end
	}
	if b.Len() == 0 {
		return s, kinds
	}
	b.WriteString(s[last:])
	return b.String(), kinds
}

// urlByte reports whether c may be in an address as written in text: not
// a space or a control, a quote, a backslash (a JSON escape) or an angle
// bracket.
func urlByte(c byte) bool {
	switch c {
	case '"', '\'', '\\', '<', '>', '`', 0x7f:
		return false
	}
	return c > ' '
}

// queryCredential reports whether a query parameter's key names a
// credential: "api_key", "access_token", "X-Amz-Signature", "password",
// case, "-" and "_" aside.
func queryCredential(key string) bool {
	k := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(key))
	switch k {
	case "password", "passwd", "pwd", "pass", "secret", "clientsecret", "key", "apikey", "token", "accesstoken",
		"apitoken", "authtoken", "refreshtoken", "idtoken", "auth", "authorization", "sig", "signature",
		"xamzsignature", "xamzsecuritytoken", "xamzcredential", "session", "sessionid", "sid", "code":
		return true
	}
	return false
}
