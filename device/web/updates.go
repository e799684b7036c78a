package web

import (
	"errors"
	"fmt"
	"io"
	"net/http"

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
func (s *Server) updatesUpload(w http.ResponseWriter, r *request) {
	if s.o.API.Updates == nil {
		s.unserved(w, r, "Updates", "updates")
		return
	}
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
