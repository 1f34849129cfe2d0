package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"

	"github.com/tlsbench/tlsbench/client/sessionid"
	"github.com/tlsbench/tlsbench/probe/sessionidcheck"
)

// resumedText is the evidence of a resumption by session ID: a resumed
// connection exists only once the server's Finished, made with the
// session's master secret, has verified.
const resumedText = "resumed by session ID (abbreviated handshake, server Finished verified)"

// sessionsToLearn is how many full handshakes the single resumption by
// session ID may try: a miss may be a worker process's cache.
const sessionsToLearn = 3

// sessionIDChecks runs the TLS 1.2 checks of resumption by session ID:
// a full handshake that offers no ticket, one resumption of its session
// on a connection of its own, then Concurrency simultaneous resumptions
// of the same session.
//
// A server whose worker processes each keep a cache of their own
// resumes a session only on connections that reach the worker that
// made it, so the single resumption may miss: a new session is learnt
// and resumed, up to sessionsToLearn. The simultaneous round runs after
// misses too, and a session it resumed makes the single finding a yes
// that says so.
func (p *prober) sessionIDChecks(ctx context.Context, suites []uint16, vr *Version) {
	p.progress("TLS 1.2: full handshake without a ticket, then resumption by session ID")
	t := sessionidcheck.Target{Addr: p.o.Addr, Config: p.clientConfig(tls.VersionTLS12, suites, false), Timeout: p.o.Timeout}
	var (
		s      *sessionid.Session
		err    error
		single Finding
		missed bool
	)
	for session := 1; session <= sessionsToLearn; session++ {
		if s, err = sessionidcheck.Learn(ctx, t, func(tc *tls.Conn) { p.exchange(tc) }); err != nil {
			single = learnFailure(err)
			break
		}
		if single, missed = p.resumeByID(ctx, t, s); !missed {
			if session > 1 && single.Status == Yes {
				single.Detail += fmt.Sprintf("; on the session of full handshake %d of %d, the earlier ones' resumptions having got a new session, as from a server whose worker processes keep caches of their own", session, sessionsToLearn)
			}
			break
		}
	}
	conc := SessionIDLoad{Concurrency: max(p.o.Concurrency, 0)}
	switch {
	case errors.Is(err, sessionid.ErrNoSessionID):
		conc.Finding = notTested("the server gave no session ID")
	case err != nil:
		conc.Finding = notTested("no session ID to resume")
	case single.Status == Error:
		conc.Finding = notTested("resumption by session ID failed on a single connection")
	case p.o.Concurrency < 0:
		conc.Finding = notTested(p.o.advice("disabled (%s 0)", SettingConcurrency))
	default:
		p.progress("TLS 1.2: %d simultaneous resumptions of one session ID", p.o.Concurrency)
		conc = roundFinding(sessionidcheck.Simultaneous(ctx, t, s, p.o.Concurrency))
		if ctx.Err() != nil {
			conc.Finding = failed("interrupted")
		}
	}
	if missed && conc.Resumed > 0 {
		single = yes(fmt.Sprintf("%s in %d of %d simultaneous attempts, though each of %d sessions, resumed alone, got a new session: the server's session cache is not shared by all its connections",
			resumedText, conc.Resumed, conc.Concurrency, sessionsToLearn))
	}
	vr.SessionIDResumption, vr.SessionIDConcurrent = &single, &conc
}

// learnFailure is the finding of a full handshake without a ticket that
// gave no session to resume.
func learnFailure(err error) Finding {
	switch {
	case err == nil:
		return Finding{}
	case errors.Is(err, sessionid.ErrNoSessionID):
		return no("the server gave no session ID (an empty one in its ServerHello, to a ClientHello without a ticket extension): it keeps no TLS 1.2 session to resume by ID")
	case errors.Is(err, sessionid.ErrUnsupportedSuite):
		return notTested("none of the cipher suites the server accepts can be resumed by tlsbench (ECDHE with AES-GCM or ChaCha20-Poly1305)")
	case noSharedSuite(err):
		return notTested("the server refused every cipher suite tlsbench resumes by session ID (ECDHE with AES-GCM or ChaCha20-Poly1305): " + errText(err))
	}
	return failed("the full handshake without a ticket failed: " + errText(err))
}

// resumeByID resumes s once, on a connection of its own, with the
// request. missed: the server started a new session instead.
func (p *prober) resumeByID(ctx context.Context, t sessionidcheck.Target, s *sessionid.Session) (Finding, bool) {
	a, err := sessionidcheck.Resume(ctx, t, s, p.o.Request, hostHeader(&p.o), p.unanswered != "")
	switch {
	case errors.Is(err, sessionid.ErrNotResumed):
		return no("the server did not resume the session ID: it started a new session"), true
	case err != nil:
		return failed("the resumption by session ID failed: " + errText(err)), false
	case a.Err != nil:
		return yes(resumedText + "; the request on it then failed: " + noAnswer(a.Err).Error()), false
	case a.First != "":
		return yes(fmt.Sprintf("%s; the server answered %q", resumedText, a.First)), false
	}
	return yes(resumedText), false
}

// roundFinding judges a simultaneous round: a cache shared by all the
// server's connections resumes every one.
func roundFinding(r sessionidcheck.Round) SessionIDLoad {
	l := SessionIDLoad{Concurrency: r.Concurrency, Resumed: r.Resumed, NewSessions: r.NewSessions, Errors: r.Errors}
	detail := fmt.Sprintf("%d of %d concurrent resumptions of one session resumed", r.Resumed, r.Concurrency)
	if r.NewSessions > 0 && r.NewSessions < r.Concurrency {
		detail += fmt.Sprintf(", %d got a new session", r.NewSessions)
	}
	failures := ""
	if r.Errors > 0 {
		failures = fmt.Sprintf("; %d failed (%s)", r.Errors, errText(r.FirstErr))
	}
	switch {
	case r.Resumed == r.Concurrency:
		l.Finding = yes(detail + ": the cache is shared")
	case r.NewSessions == r.Concurrency:
		l.Finding = no(detail + ": every one got a new session")
	case r.NewSessions > 0 && r.Resumed > 0:
		l.Finding = no(detail + ": the cache looks per worker process (or too small)" + failures)
	case r.NewSessions > 0:
		l.Finding = no(detail + failures)
	default:
		l.Finding = failed(detail + failures)
	}
	return l
}

// resumesBy sums up how TLS 1.2 resumes from its two findings, or ""
// when either is not a yes or a no.
func resumesBy(ticket, sessionID Finding) string {
	known := func(f Finding) bool { return f.Status == Yes || f.Status == No }
	if !known(ticket) || !known(sessionID) {
		return ""
	}
	switch t, s := ticket.Status == Yes, sessionID.Status == Yes; {
	case t && s:
		return ResumesByBoth
	case t:
		return ResumesByTicket
	case s:
		return ResumesBySessionID
	}
	return ResumesByNeither
}
