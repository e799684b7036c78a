// Package control is the running daemon's API: one set of HTTP handlers
// that every client of the box uses. Today they are served on the daemon's
// unix socket to the `hark` command line, and in process to a `hark` command
// that finds no daemon running (it opens the data directory itself and
// serves itself the same handlers, so the user never sees the difference).
// The same handlers are meant for the LAN later (the web page, nodes), so
// every request carries an authenticated Identity.
//
// # Identity
//
// On the unix socket the peer's credentials (SO_PEERCRED) are read when the
// connection is accepted: root and the daemon's own user are the local
// administrator; any other user is refused with 403, whatever the socket
// file's mode lets through. A request without an identity is refused with
// 401.
//
// # Errors
//
// Every error is JSON: {"error": "what went wrong, in words", "code":
// "not_found"}. The codes are bad_request, unauthenticated, forbidden,
// not_found, conflict, storage_full, unavailable and internal.
//
// # Endpoints (version 1)
//
//	GET    /api/v1/status                  Status: the state, readiness, version and self-test
//	GET    /api/v1/idle                    answers once the speaker is idle (long poll)
//	POST   /api/v1/updating                Update: show or clear the updating pattern
//	GET    /api/v1/alerts[?all=1]          []Alert: running timers; with all, alarms and reminders
//	POST   /api/v1/alerts                  NewAlert: set a timer, alarm or reminder; the Alert
//	DELETE /api/v1/alerts/{id-or-name}     silence one that rings, or cancel one to come
//	POST   /api/v1/alerts/stop             Stopped: silence everything that rings
//	GET    /api/v1/secrets                 []string: the names of the secrets set (never values)
//	PUT    /api/v1/secrets/{name}          SecretValue: set one
//	DELETE /api/v1/secrets/{name}          remove one
//	GET    /api/v1/commands                []CommandInfo: the commands, their parameters and secrets
//	POST   /api/v1/commands/{name}/setup   a command's interactive setup (see below)
//	GET    /api/v1/mcp                     []MCPServer: the MCP servers, their state and tools
//	GET    /api/v1/settings                []Setting: what a user changes, with help and source
//	PUT    /api/v1/settings/{key}          SettingValue: keep one for the next start
//	POST   /api/v1/restart                 start the daemon again, applying the settings kept
//	GET    /api/v1/updates                 UpdateStatus: running, offered, slots, the install under way
//	POST   /api/v1/updates/check           UpdateStatus after asking the update server
//	POST   /api/v1/updates/install         UpdateSource: start installing (progress in UpdateStatus)
//	PUT    /api/v1/updates/bundle          a bundle file as the body: keep it and install it
//	POST   /api/v1/updates/rollback        boot the other slot
//	GET    /api/v1/web/code                WebCode: the web page's one-time setup code, while pending
//	POST   /api/v1/web/reset               WebCode: forget the page's password; its new setup code
//	GET    /api/v1/models?host=H         ModelServer: the models of the server at H (the welcome)
//	POST   /api/v1/models/try              ModelTrial: ask a model the test question; the Trial
//	GET    /api/v1/turns                   []Turn: the last 50 turns, heard and said, with their stages' times
//	POST   /api/v1/voice                   Question: its text spoken in the box's voice, as audio/wav
//	GET    /api/v1/facts                   []Fact: what the assistant was asked to remember
//	DELETE /api/v1/facts/{id}              forget one
//	GET    /api/v1/conversations           []Conversation: the dialogue, by conversation
//	DELETE /api/v1/conversations/{id}      delete one conversation's exchanges
//	POST   /api/v1/ask                     Question: a typed turn, streamed (see below)
//	GET    /api/v1/logs[?lines=N]          LogLines: the last lines of the daemon's log
//
// # Streams
//
// POST /api/v1/ask answers with newline-delimited JSON (application/x-ndjson):
// one AskEvent {"sentence": "..."} per sentence as soon as it is ready, then
// one final AskEvent carrying "result" (the reply engine's result as JSON)
// and, when the reply failed, "error".
//
// POST /api/v1/commands/{name}/setup is full duplex: the server streams
// SetupEvent lines ({"say": "..."}, {"ask": "question"}, and last {"done":
// true} or {"error": "..."}), and the client writes one SetupAnswer line
// ({"answer": "..."}) in the request body for each "ask".
package control
