package loadgen

import (
	"crypto/tls"
	"fmt"
	"time"

	"github.com/tlsbench/tlsbench/bulk"
	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
)

// ThroughputCase is one bulk-transfer case against tlsbench's built-in
// server (the wire protocol of package bulk).
//
// Concurrency connections are opened once per case (handshake, setup,
// kTLS switch: none of it measured); every iteration then moves Bytes per
// connection and direction, or keeps moving data for Duration, on all
// connections at once. An iteration's time runs from the common start to
// the end of the last connection's transfer.
type ThroughputCase struct {
	// Name is the case name in results, e.g.
	// throughput/tls1.3/aes128gcm/16k/download/ktls-on/c1.
	Name    string
	Version uint16
	// Cipher is ktls.CipherAES128GCM, CipherAES256GCM or
	// CipherChaCha20Poly1305; the case fails if another is negotiated.
	Cipher string
	// Buffer is the application read and write size.
	Buffer int
	// Direction is DirectionDownload, DirectionUpload or DirectionBoth.
	Direction string
	// Bytes per connection and direction per iteration, or Duration per
	// iteration: exactly one is set.
	Bytes    int64
	Duration time.Duration
	// Concurrency is the number of parallel connections.
	Concurrency int
	// Iterations measured and Warmup iterations discarded before them;
	// MaxDuration stops measuring early (after at least two iterations).
	Iterations  int
	Warmup      int
	MaxDuration time.Duration
	// KTLS is the kTLS mode of both ends: off, auto (kTLS where the
	// kernel can, user space otherwise, with the reason in the notes) or
	// on (the case fails without it). The server must have been started
	// with server.WithKTLS for its end to switch.
	KTLS ktls.Mode
	// Source, when set, is a file the server sends instead of the
	// generated stream (download only).
	Source *FileSource
	// Client is the base client configuration (roots, server name);
	// versions, cipher suites and the key log are set per case.
	Client *tls.Config
	Dialer client.Dialer
	// ConnTimeout bounds connection setup, and any stall of a transfer
	// (default 10 s).
	ConnTimeout time.Duration
	// Server, when set, gives the server's CPU time.
	Server measure.ServerObserver
	// Proxy, when set, is the proxy the Dialer connects through: its
	// CPU and counts over the kept iterations (see proxyFigures).
	Proxy measure.ProxyObserver
	// Record holds the descriptive fields to copy into the result.
	Record results.Record
	// Progress, when set, is called after every iteration.
	Progress func(ThroughputProgress)
	// Measuring, when set, is called with true just before the first
	// measured iteration (the connections open and warmed up) and with
	// false just after the last: what a profile of the measured
	// iterations alone starts and stops on.
	Measuring func(begin bool)
	// Words names the settings in the case's errors and notes.
	Words client.Words
	// Request is the request form: ThroughputRequestBulk (default, "")
	// or ThroughputRequestHTTP, for a path through a proxy that parses
	// HTTP.
	Request string
}

// FileSource is a file the server was started with (server.WithSources).
type FileSource struct {
	// Path is read by the client too, to know what must arrive.
	Path string
	// Index is the file's 1-based position in the server's sources.
	Index int
}

// ThroughputProgress reports a finished iteration.
type ThroughputProgress struct {
	Case      string
	Warmup    bool
	Iteration int // 1-based within its phase
	Of        int
	MBps      float64
}

// ThroughputError is a throughput case that could not be measured: a
// connection or the kTLS switch failed, another cipher was negotiated, or
// the data arrived corrupted (errors.As finds a *bulk.IntegrityError).
type ThroughputError struct {
	Case string
	Err  error
}

func (e *ThroughputError) Error() string { return e.Case + ": " + e.Err.Error() }

func (e *ThroughputError) Unwrap() error { return e.Err }

// tls12Suites are the TLS 1.2 suites of each cipher, ECDSA and RSA keys.
var tls12Suites = map[string][]uint16{
	ktls.CipherAES128GCM:        {tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256},
	ktls.CipherAES256GCM:        {tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384},
	ktls.CipherChaCha20Poly1305: {tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256},
}

// ThroughputConfig derives the client configuration of a case from base:
// TLS 1.2 pinned with the cipher's suites; TLS 1.3 steered to the cipher
// with ktls.PreferTLS13Cipher (Go ignores CipherSuites for TLS 1.3). It
// fails with ktls.ErrTLS13AES256 for TLS 1.3 AES-256-GCM, which two Go
// endpoints cannot negotiate: such a case is not runnable, and measuring
// another cipher in its place would be wrong. Sessions are not cached:
// every connection makes one full handshake that is not measured.
func ThroughputConfig(base *tls.Config, version uint16, cipher string) (*tls.Config, error) {
	suites, ok := tls12Suites[cipher]
	if !ok {
		return nil, fmt.Errorf("unknown cipher %q (want %s, %s or %s)", cipher, ktls.CipherAES128GCM, ktls.CipherAES256GCM, ktls.CipherChaCha20Poly1305)
	}
	cfg := base.Clone()
	cfg.ClientSessionCache = nil
	switch version {
	case tls.VersionTLS12:
		cfg.MinVersion, cfg.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
		cfg.CipherSuites = suites
	case tls.VersionTLS13:
		cfg.MinVersion, cfg.MaxVersion = tls.VersionTLS12, tls.VersionTLS13
		if err := ktls.PreferTLS13Cipher(cfg, cipher); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("TLS version %#04x: throughput cases run TLS 1.2 or 1.3", version)
	}
	return cfg, nil
}

func (tc *ThroughputCase) validate() error {
	switch {
	case tc.Buffer < 1 || tc.Buffer > bulk.MaxBuffer:
		return field.Errorf("Buffer", tc.Buffer, "must be 1..%d bytes", bulk.MaxBuffer)
	case tc.Bytes < 0:
		return field.Errorf("Bytes", tc.Bytes, "must be positive")
	case tc.Duration < 0:
		return field.Errorf("Duration", tc.Duration, "must be positive")
	case (tc.Bytes > 0) == (tc.Duration > 0):
		return field.Errorf("Bytes", tc.Bytes, "give exactly one of Bytes or Duration per iteration")
	case tc.Concurrency < 1:
		return field.Errorf("Concurrency", tc.Concurrency, "must be at least 1")
	case tc.Iterations < 1:
		return field.Errorf("Iterations", tc.Iterations, "must be at least 1")
	case tc.Client == nil:
		return field.Errorf("Client", nil, "no client configuration")
	case tc.Dialer == nil:
		return field.Errorf("Dialer", nil, "no dialer")
	}
	switch tc.Direction {
	case DirectionDownload, DirectionUpload, DirectionBoth:
	default:
		return field.Errorf("Direction", tc.Direction, "want download, upload or both")
	}
	if tc.Source != nil && tc.Direction != DirectionDownload {
		return field.Errorf("Direction", tc.Direction, "a file source is sent by the server: must be download")
	}
	if err := tc.validateRequest(); err != nil {
		return err
	}
	if tc.ConnTimeout <= 0 {
		tc.ConnTimeout = 10 * time.Second
	}
	return nil
}
