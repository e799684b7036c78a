package center

import (
	"context"
	"net/http"
	"strconv"
	"strings"
)

// Audio is speech as raw PCM: 16-bit little-endian samples, interleaved.
type Audio struct {
	Rate, Channels int
	PCM            []byte
}

// The audio headers of a raw PCM answer.
const (
	HeaderSampleRate       = "X-Audio-Sample-Rate"
	HeaderChannels         = "X-Audio-Channels"
	HeaderSampleWidth      = "X-Audio-Sample-Width"
	HeaderAssistantMessage = "X-Assistant-Message"
	// RawAudio is the media type of a raw PCM answer.
	RawAudio = "audio/raw"
)

// messageHeaderMax bounds the percent-encoded X-Assistant-Message, well
// under what HTTP clients take in one header line.
const messageHeaderMax = 16 << 10

// voiced answers a /stream request: the reply spoken, as raw PCM with 200,
// when the center has a voice and the reply ends with words to say;
// otherwise, or when the voice fails before the first sound, it calls
// otherwise with what the reply did, which answers the node.
func (s *Server) voiced(w http.ResponseWriter, r *http.Request, sess *session, tr *run, otherwise func(outcome)) {
	oc, why := tr.await(r.Context(), sess.ctx, nil, nil, 0)
	switch why {
	case gaveUp:
		sess.release(tr)
		s.log.Info("the node gave up on the reply; stopped it", "conversation", sess.id)
		return
	case ended, stopped:
		if s.stoppedUnbegun(tr) {
			fail(w, http.StatusServiceUnavailable, stopping)
		} else {
			s.cutShort(w, sess, why)
		}
		return
	}
	if s.o.Media.Voice == nil || !oc.spoken() {
		otherwise(oc)
		return
	}
	message := strings.Join(oc.said, " ")
	if !s.writeAudio(r.Context(), w, oc.said, func(h http.Header) { h.Set(HeaderAssistantMessage, headerText(message)) }) {
		otherwise(oc)
		return
	}
	s.answered(r.Context(), w, sess, tr, oc)
}

// continueStream is /voice/command/continue/stream: the reply after a tool
// result, spoken with 200 when the center has a voice and the reply ends
// with words to say. Otherwise the answer is 202 {"fallback":
// "use_blocking_continue"}: the node sends the same result to /continue,
// which answers with what the reply did (kept, when the result was
// already handed over) or hands it over then.
func (s *Server) continueStream(w http.ResponseWriter, r *http.Request, node NodeInfo) {
	req, sess := s.continuation(w, r, node)
	if sess == nil {
		return
	}
	fallback := func() { writeJSON(w, http.StatusAccepted, Fallback{Fallback: UseBlocking}) }
	if s.o.Media.Voice == nil || req.ValidationResponse != nil {
		fallback()
		return
	}
	res := req.ToolResults[0]
	if _, ok := sess.answerIn(res); ok {
		fallback()
		return
	}
	if p := sess.take(res.ToolCallID); p != nil { // sent twice to the stream: keep it for /continue
		sess.park(res.ToolCallID, p.tr, p.oc)
		fallback()
		return
	}
	tr, status, msg := sess.deliver(res)
	if tr == nil {
		fail(w, status, msg)
		return
	}
	s.voiced(w, r, sess, tr, func(oc outcome) {
		sess.park(res.ToolCallID, tr, oc)
		fallback()
	})
}

// writeAudio speaks sentences one by one as raw PCM, in the format of the
// first; header adds to the response's headers. It reports false, having
// written nothing, when the voice fails on the first sentence; a later
// failure ends the audio early.
func (s *Server) writeAudio(ctx context.Context, w http.ResponseWriter, sentences []string, header func(http.Header)) bool {
	v := s.o.Media.Voice
	speak := func(text string) (Audio, error) {
		ctx, cancel := context.WithTimeout(ctx, s.o.Media.Timeout)
		defer cancel()
		return speakAudio(ctx, v, text)
	}
	first, err := speak(sentences[0])
	if err != nil {
		s.log.Warn("the center's voice failed; answering with text", "err", err)
		return false
	}
	h := w.Header()
	h.Set("Content-Type", RawAudio)
	h.Set(HeaderSampleRate, strconv.Itoa(first.Rate))
	h.Set(HeaderChannels, strconv.Itoa(first.Channels))
	h.Set(HeaderSampleWidth, "2")
	if header != nil {
		header(h)
	}
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	write := func(a Audio) bool {
		if _, err := w.Write(a.PCM); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	if !write(first) {
		return true
	}
	for _, text := range sentences[1:] {
		a, err := speak(text)
		switch {
		case err != nil:
			s.log.Warn("the center's voice failed mid-answer; the rest is not spoken", "err", err)
			return true
		case a.Rate != first.Rate || a.Channels != first.Channels:
			s.log.Warn("the center's voice changed format mid-answer; the rest is not spoken", "rate", a.Rate, "channels", a.Channels)
			return true
		}
		if !write(a) {
			return true
		}
	}
	return true
}

// headerText percent-encodes text for a header as a Jarvis node decodes it
// (Python's urllib unquote): every byte but the unreserved ones, spaces
// included, so that a plus stays a plus. A long text is cut at a rune.
func headerText(text string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for _, r := range text {
		var enc []byte
		for _, c := range []byte(string(r)) {
			if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
				enc = append(enc, c)
			} else {
				enc = append(enc, '%', hexDigits[c>>4], hexDigits[c&15])
			}
		}
		if b.Len()+len(enc) > messageHeaderMax {
			break
		}
		b.Write(enc)
	}
	return b.String()
}
