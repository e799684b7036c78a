package web

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/harkbox/hark/device/control"
)

func (s *Server) updatesRoutes(handle func(string, pageHandler)) {
	handle("GET /updates", s.updatesPage)
	handle("POST /updates/check", s.updatesCheck)
	handle("POST /updates/install", s.updatesInstall)
	handle("POST /updates/upload", s.updatesUpload)
	handle("POST /updates/rollback", s.updatesRollback)
}

func (s *Server) updatesPage(w http.ResponseWriter, r *request) {
	if s.o.API.Updates == nil {
		s.unserved(w, r, "Updates", "updates")
		return
	}
	v := s.page(r, "Updates", "updates")
	st, err := s.o.API.Updates.Status(r.Context())
	code := http.StatusOK
	if err != nil {
		v.Error, code = sentence(err), status(err)
		if errors.Is(err, control.ErrUnavailable) {
			code = http.StatusOK // the page still says what runs and why updates cannot
		}
	}
	v.Data = st
	s.render(w, code, "updates", v)
}

func (s *Server) updatesCheck(w http.ResponseWriter, r *request) {
	if s.o.API.Updates == nil {
		s.unserved(w, r, "Updates", "updates")
		return
	}
	st, err := s.o.API.Updates.Check(r.Context())
	switch {
	case err != nil:
		s.back(w, r, "/updates", sentence(err))
	case st.Newer:
		s.back(w, r, "/updates", fmt.Sprintf("Version %s is available.", st.Offered))
	default:
		s.back(w, r, "/updates", fmt.Sprintf("Hark is up to date (the server offers %s).", st.Offered))
	}
}

func (s *Server) updatesInstall(w http.ResponseWriter, r *request) {
	if s.o.API.Updates == nil {
		s.unserved(w, r, "Updates", "updates")
		return
	}
	if err := s.o.API.Updates.Install(r.Context(), ""); err != nil {
		s.back(w, r, "/updates", sentence(err))
		return
	}
	s.log.Info("update started from the web page", "from", r.RemoteAddr)
	s.back(w, r, "/updates", "Installing: the speaker restarts into the new version when it is idle.")
}

// updatesUpload streams a bundle file from the form to the daemon, which
// keeps it and installs it.
//
// A bundle is tens to hundreds of MiB, minutes over a slow Wi-Fi, so the
// server's read deadline, which bounds a whole request (30 s on the box),
// is lifted here: the upload may take as long as it takes while it moves,
// and ends once it has sent nothing for uploadIdle.
func (s *Server) updatesUpload(w http.ResponseWriter, r *request) {
	if s.o.API.Updates == nil {
		s.unserved(w, r, "Updates", "updates")
		return
	}
	r.Body = s.whileMoving(w, r.Body)
	mr, err := r.MultipartReader()
	if err != nil {
		s.back(w, r, "/updates", "Choose a bundle file to upload.")
		return
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			s.back(w, r, "/updates", "Choose a bundle file to upload.")
			return
		}
		if err != nil {
			s.back(w, r, "/updates", "The upload broke off: "+err.Error()+".")
			return
		}
		if part.FormName() != "bundle" {
			continue
		}
		if part.FileName() == "" {
			s.back(w, r, "/updates", "Choose a bundle file to upload.")
			return
		}
		if err := s.o.API.Updates.Upload(r.Context(), part); err != nil {
			s.back(w, r, "/updates", sentence(err))
			return
		}
		s.log.Info("update bundle uploaded from the web page", "file", part.FileName(), "from", r.RemoteAddr)
		s.back(w, r, "/updates", "Uploaded "+part.FileName()+"; installing it.")
		return
	}
}

func (s *Server) updatesRollback(w http.ResponseWriter, r *request) {
	if s.o.API.Updates == nil {
		s.unserved(w, r, "Updates", "updates")
		return
	}
	if err := s.o.API.Updates.Rollback(r.Context()); err != nil {
		s.back(w, r, "/updates", sentence(err))
		return
	}
	s.back(w, r, "/updates", "The other slot boots next: the speaker restarts into it when it is idle.")
}

// uploadIdle is how long an upload may send nothing before it is cut off.
const uploadIdle = 30 * time.Second

// whileMoving is body with its connection's read deadline moved on, to
// s.uploadIdle from now, as bytes arrive; body as it is where the
// connection cannot move its deadline (a test's recorder).
func (s *Server) whileMoving(w http.ResponseWriter, body io.ReadCloser) io.ReadCloser {
	m := &moving{ReadCloser: body, rc: http.NewResponseController(w), idle: s.uploadIdle}
	if err := m.move(); err != nil {
		if !errors.Is(err, http.ErrNotSupported) {
			s.log.Warn("an upload keeps the server's read deadline", "err", err)
		}
		return body
	}
	return m
}

// moving is a request body whose read deadline moves on as it is read.
type moving struct {
	io.ReadCloser
	rc    *http.ResponseController
	idle  time.Duration
	until time.Time // the deadline set last
}

func (m *moving) Read(p []byte) (int, error) {
	n, err := m.ReadCloser.Read(p)
	if n > 0 && time.Until(m.until) < m.idle-m.idle/8 { // not at every read: a bundle is thousands
		if err := m.move(); err != nil {
			return n, fmt.Errorf("web: the upload's read deadline: %w", err)
		}
	}
	return n, err
}

func (m *moving) move() error {
	m.until = time.Now().Add(m.idle)
	return m.rc.SetReadDeadline(m.until)
}
