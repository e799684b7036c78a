package redact

import (
	"context"
	"encoding"
	"fmt"
	"log/slog"
	"strings"
)

// Addresses returns s with the password of each address in it hidden as
// Redact hides it ("http://admin:[SECRET_1]@host:11434"), and nothing else:
// for text that is no one's words, such as a log's lines and errors, in
// which an e-mail address or a long number is no secret. With no password
// in s it returns s itself.
func Addresses(s string) string {
	if strings.IndexByte(s, '@') < 0 && strings.IndexByte(s, '?') < 0 {
		return s
	}
	r := New()
	r.mu.Lock()
	defer r.mu.Unlock()
	out, _ := r.addresses(s, nil)
	out, _ = r.queries(out, nil)
	return out
}

// LogHandler is a log handler whose records keep no password of an
// address (Addresses): not in the message, nor in a value of any kind,
// an error (what an HTTP client or url.Parse returns quotes its URL) or a
// value that prints itself among them. A value with a password is logged
// as its text with the password hidden. It is safe for concurrent use as
// the handler it wraps is.
type LogHandler struct {
	h slog.Handler
}

var _ slog.Handler = (*LogHandler)(nil)

// NewLogHandler returns a LogHandler that hands its records to h.
func NewLogHandler(h slog.Handler) *LogHandler { return &LogHandler{h: h} }

// Enabled reports whether the handler it wraps handles level.
func (l *LogHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return l.h.Enabled(ctx, level)
}

// Handle hands r, its passwords hidden, to the handler it wraps.
func (l *LogHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, Addresses(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(hideAttr(a))
		return true
	})
	return l.h.Handle(ctx, out)
}

// WithAttrs is the handler with as, their passwords hidden.
func (l *LogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	hidden := make([]slog.Attr, len(as))
	for i, a := range as {
		hidden[i] = hideAttr(a)
	}
	return &LogHandler{h: l.h.WithAttrs(hidden)}
}

// WithGroup is the handler with the group name.
func (l *LogHandler) WithGroup(name string) slog.Handler {
	return &LogHandler{h: l.h.WithGroup(name)}
}

// hideAttr is a without the passwords of the addresses in its value.
func hideAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if s := v.String(); strings.ContainsAny(s, "@?") {
			v = slog.StringValue(Addresses(s))
		}
	case slog.KindGroup:
		as := v.Group()
		hidden := make([]slog.Attr, len(as))
		for i, g := range as {
			hidden[i] = hideAttr(g)
		}
		v = slog.GroupValue(hidden...)
	case slog.KindAny:
		if s := text(v.Any()); strings.ContainsAny(s, "@?") {
			if h := Addresses(s); h != s {
				v = slog.StringValue(h)
			}
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// text is x as a log handler writes it; "" for one whose method to
// write it panics (a nil pointer's), which the handler reports.
func text(x any) (s string) {
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	switch x := x.(type) {
	case nil:
		return ""
	case error:
		return x.Error()
	case encoding.TextMarshaler:
		b, err := x.MarshalText()
		if err != nil {
			return ""
		}
		return string(b)
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprintf("%+v", x)
}
