package peers

import (
	"context"
	"errors"
	"fmt"
	"github.com/tlsbench/tlsbench/internal/procid"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
	"time"
)

// NginxConfig describes the one TLS server block of a test nginx.
type NginxConfig struct {
	// Cert and Key are the server's PEM chain and key files.
	Cert, Key string
	// Protocols for ssl_protocols (default TLSv1.2 TLSv1.3).
	Protocols []string
	// Tickets sets ssl_session_tickets.
	Tickets bool
	// SessionCache is the ssl_session_cache value, e.g. "shared:SSL:1m"
	// (default "off").
	SessionCache string
	// SessionTimeout is ssl_session_timeout, e.g. "5m" (default nginx's).
	SessionTimeout string
	// VerifyClient is ssl_verify_client: "", "on", "optional" (with
	// ClientCA, the CA file that issues client certificates).
	VerifyClient string
	ClientCA     string
	// HTTP2 adds the http2 listen parameter (ALPN h2).
	HTTP2 bool
	// Workers is worker_processes (default 1).
	Workers int
	// ReusePort adds the reuseport listen parameter: each worker gets
	// a socket of its own, and the kernel spreads connections over them
	// by address hash (without it, one worker may take most).
	ReusePort bool
	// Extra is appended to the server block verbatim.
	Extra string
	// Dir is where the configuration, pid file and logs go (default a
	// new temporary directory, removed by Stop).
	Dir string
}

// Nginx is a running nginx.
type Nginx struct {
	// Addr is the 127.0.0.1:port it listens on.
	Addr string
	// Dir holds nginx.conf, error.log and the pid file.
	Dir    string
	Config string
	p      *process
	rmDir  bool
}

var nginxTemplate = template.Must(template.New("nginx").Parse(`# written by tlsbench internal/peers
worker_processes {{.Workers}};
pid {{.Dir}}/nginx.pid;
error_log {{.Dir}}/error.log notice;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path {{.Dir}}/tmp/body;
    proxy_temp_path {{.Dir}}/tmp/proxy;
    fastcgi_temp_path {{.Dir}}/tmp/fastcgi;
    uwsgi_temp_path {{.Dir}}/tmp/uwsgi;
    scgi_temp_path {{.Dir}}/tmp/scgi;
    server {
        listen 127.0.0.1:{{.Port}} ssl{{if .HTTP2}} http2{{end}}{{if .ReusePort}} reuseport{{end}};
        server_name localhost;
        ssl_certificate {{.Cert}};
        ssl_certificate_key {{.Key}};
        ssl_protocols {{.ProtocolList}};
        ssl_session_tickets {{if .Tickets}}on{{else}}off{{end}};
        ssl_session_cache {{.SessionCache}};
{{- if .SessionTimeout}}
        ssl_session_timeout {{.SessionTimeout}};
{{- end}}
{{- if .VerifyClient}}
        ssl_verify_client {{.VerifyClient}};
        ssl_client_certificate {{.ClientCA}};
{{- end}}
        location / {
            return 200 "tlsbench nginx peer\n";
        }
{{.Extra}}
    }
}
`))

type nginxData struct {
	NginxConfig
	Port         int
	ProtocolList string
}

// StartNginx writes an nginx configuration for c and starts
// `nginx -p DIR -c DIR/nginx.conf -e DIR/error.log -g 'daemon off;'` in the
// foreground, listening on a free 127.0.0.1 port, and waits until it
// accepts. nginx cannot listen on port 0 and say which port it got, so a
// port that was just free is chosen, and another one tried if nginx finds
// it taken. ctx ending stops the server.
func StartNginx(ctx context.Context, c NginxConfig) (*Nginx, error) {
	bin, err := lookPath("nginx")
	if err != nil {
		return nil, err
	}
	if c, err = c.withDefaults(); err != nil {
		return nil, err
	}
	n := &Nginx{}
	if c.Dir == "" {
		if c.Dir, err = os.MkdirTemp("", "tlsbench-nginx-"); err != nil {
			return nil, err
		}
		n.rmDir = true
	}
	n.Dir = c.Dir
	if err := os.MkdirAll(filepath.Join(c.Dir, "tmp"), 0o755); err != nil {
		n.cleanup()
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		started, err := n.start(ctx, bin, c)
		if started {
			return n, nil
		}
		if lastErr = err; n.p == nil || !strings.Contains(err.Error(), "Address already in use") {
			break
		}
	}
	n.cleanup()
	return nil, lastErr
}

// withDefaults checks c and fills in its defaults; its files become
// absolute, as nginx reads them relative to its prefix directory.
func (c NginxConfig) withDefaults() (NginxConfig, error) {
	if c.Cert == "" || c.Key == "" {
		return c, errors.New("nginx peer needs Cert and Key")
	}
	if c.VerifyClient != "" && c.ClientCA == "" {
		return c, errors.New("nginx peer: VerifyClient needs ClientCA")
	}
	if c.Workers <= 0 {
		c.Workers = 1
	}
	if len(c.Protocols) == 0 {
		c.Protocols = []string{"TLSv1.2", "TLSv1.3"}
	}
	if c.SessionCache == "" {
		c.SessionCache = "off"
	}
	for _, f := range []*string{&c.Cert, &c.Key, &c.ClientCA} {
		if *f != "" {
			var err error
			if *f, err = filepath.Abs(*f); err != nil {
				return c, err
			}
		}
	}
	return c, nil
}

// start makes one attempt on a port that was just free: it writes the
// configuration, starts nginx and waits until it accepts. It reports
// false with the reason when nginx did not come up; n.p is nil when the
// attempt failed before nginx ran, which is not worth another try.
func (n *Nginx) start(ctx context.Context, bin string, c NginxConfig) (bool, error) {
	n.p = nil
	port, err := freePort()
	if err != nil {
		return false, err
	}
	var conf strings.Builder
	if err := nginxTemplate.Execute(&conf, nginxData{c, port, strings.Join(c.Protocols, " ")}); err != nil {
		return false, err
	}
	n.Config = conf.String()
	confPath := filepath.Join(c.Dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(n.Config), 0o644); err != nil {
		return false, err
	}
	errLog := filepath.Join(c.Dir, "error.log")
	cmd := exec.Command(bin, "-p", c.Dir, "-c", confPath, "-e", errLog, "-g", "daemon off;")
	p, err := startProcess(cmd)
	if err != nil {
		return false, fmt.Errorf("starting nginx: %w", err)
	}
	n.p = p
	n.Addr = "127.0.0.1:" + strconv.Itoa(port)
	if err := waitAccepting(p, n.Addr, StartTimeout); err != nil {
		p.stop(3 * time.Second)
		return false, n.failure(err)
	}
	go func() {
		select {
		case <-ctx.Done():
			n.Stop()
		case <-p.done:
		}
	}()
	return true, nil
}

// failure explains an nginx that did not start, from its error log.
func (n *Nginx) failure(err error) error {
	log, _ := os.ReadFile(filepath.Join(n.Dir, "error.log"))
	msg := strings.TrimSpace(string(log))
	if msg == "" {
		return n.p.failure("nginx", err)
	}
	return fmt.Errorf("nginx: %v: %s", err, lastLines(msg, 3))
}

// PID is the nginx master's process id; its workers are its children, so
// a process-tree CPU sampler given this PID counts them too.
func (n *Nginx) PID() int { return n.p.pid() }

// ErrorLog returns nginx's error log.
func (n *Nginx) ErrorLog() string {
	b, _ := os.ReadFile(filepath.Join(n.Dir, "error.log"))
	return string(b)
}

// Stop shuts nginx down (SIGTERM to master and workers), waits for it and
// removes its temporary directory.
func (n *Nginx) Stop() error {
	err := n.p.stop(5 * time.Second)
	n.cleanup()
	return err
}

func (n *Nginx) cleanup() {
	if n.rmDir {
		os.RemoveAll(n.Dir)
	}
}

// NginxVersion is nginx's version and the OpenSSL it was built with, e.g.
// "nginx/1.22.1 (built with OpenSSL 3.0.15 3 Sep 2024)".
func NginxVersion() (string, error) {
	bin, err := lookPath("nginx")
	if err != nil {
		return "", err
	}
	return procid.NginxVersion(bin)
}
