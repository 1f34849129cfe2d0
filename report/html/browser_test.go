package html

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The browser test opens the HTML report in headless Chromium, as a reader
// would open the file, and checks from inside the page that every chart
// was laid out and drew its data, and that nothing went wrong: no script
// error, no console error, no blocked or failed load (the page must not
// fetch anything).
//
// The page itself has no script and a Content-Security-Policy that forbids
// scripts. The test copies it, allows one script by nonce in that policy,
// and adds two: one at the top of <head> that records errors (window error
// events, which include failed resource loads, unhandled rejections, CSP
// violations and console.error calls), and one at the end of <body> that
// measures each chart (figure.chart) and writes the findings, as JSON, into
// a data-check attribute of <html>. It runs again on the load event, so
// errors raised while loading are counted too. Chromium's --dump-dom prints
// the DOM after load; the test reads the attribute back from it.

// chromiumEnv names a Chromium or Chrome binary to use instead of looking
// one up on PATH.
const chromiumEnv = "TLSBENCH_CHROMIUM"

// findChromium returns the browser to run, or stops the test: it fails in
// CI (where .ci/run installs Debian's chromium package, so a missing
// browser is a broken setup, not a reason to pass) and is skipped
// elsewhere.
func findChromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(chromiumEnv); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const how = "install Debian's chromium package (apt-get install -y chromium) or set " + chromiumEnv + " to a Chrome binary"
	if os.Getenv("CI") != "" {
		t.Fatal("CI is set and no headless Chromium was found: " + how)
	}
	t.Skip("no headless Chromium found, so the HTML report is not checked in a browser; " + how + " (with CI set this test fails instead)")
	return ""
}

const checkNonce = "tlsbench-check"

// checkHead records errors from the start of the page.
const checkHead = `<script nonce="` + checkNonce + `">
window.__errors = [];
window.addEventListener("error", function (e) {
  var t = e.target;
  if (t && t !== window && (t.src || t.href)) {
    window.__errors.push("failed to load " + (t.src || t.href));
  } else {
    window.__errors.push("error: " + e.message + " at " + e.filename + ":" + e.lineno);
  }
}, true);
window.addEventListener("unhandledrejection", function (e) { window.__errors.push("unhandled rejection: " + e.reason); });
document.addEventListener("securitypolicyviolation", function (e) {
  window.__errors.push("CSP violation: " + e.violatedDirective + " blocked " + e.blockedURI);
});
(function () {
  var orig = console.error;
  console.error = function () {
    window.__errors.push("console.error: " + Array.prototype.join.call(arguments, " "));
    return orig.apply(console, arguments);
  };
})();
</script>
`

// checkBody measures every chart once the page is parsed, and again on
// load.
const checkBody = `<script nonce="` + checkNonce + `">
(function () {
  function check(phase) {
    var charts = {};
    document.querySelectorAll("figure.chart").forEach(function (fig) {
      var r = {svg: 0, width: 0, height: 0, marks: 0, drawn: 0, paths: 0, pathLength: 0};
      var svg = fig.querySelector("svg");
      if (svg) {
        var box = svg.getBoundingClientRect();
        r.svg = 1; r.width = box.width; r.height = box.height;
        svg.querySelectorAll(".mark").forEach(function (m) {
          r.marks++;
          var b = m.getBBox();
          var style = getComputedStyle(m);
          if ((b.width > 0 || b.height > 0) && style.display !== "none" && style.visibility !== "hidden") {
            r.drawn++;
          }
          if (m.tagName.toLowerCase() === "path") {
            r.paths++;
            r.pathLength += m.getTotalLength();
          }
        });
      }
      charts[fig.id] = r;
    });
    document.documentElement.setAttribute("data-check",
      JSON.stringify({phase: phase, charts: charts, errors: window.__errors}));
  }
  try { check("parsed"); } catch (e) { window.__errors.push("check failed: " + e); }
  window.addEventListener("load", function () {
    try { check("load"); } catch (e) { window.__errors.push("check failed: " + e); }
  });
})();
</script>
`

type chartCheck struct {
	SVG        int     `json:"svg"`
	Width      float64 `json:"width"`
	Height     float64 `json:"height"`
	Marks      int     `json:"marks"`
	Drawn      int     `json:"drawn"`
	Paths      int     `json:"paths"`
	PathLength float64 `json:"pathLength"`
}

type pageCheck struct {
	Phase  string                `json:"phase"`
	Charts map[string]chartCheck `json:"charts"`
	Errors []string              `json:"errors"`
}

// instrument returns page with the check scripts added and allowed.
func instrument(t *testing.T, page []byte) []byte {
	t.Helper()
	s := string(page)
	const csp = `default-src 'none'; style-src 'unsafe-inline'`
	if !strings.Contains(s, csp) {
		t.Fatalf("page has no CSP %q to extend", csp)
	}
	s = strings.Replace(s, csp, csp+`; script-src 'nonce-`+checkNonce+`'`, 1)
	s = strings.Replace(s, "<title>", checkHead+"<title>", 1)
	s = strings.Replace(s, "</body>", checkBody+"</body>", 1)
	return []byte(s)
}

var dataCheck = regexp.MustCompile(`<html[^>]*\sdata-check="([^"]*)"`)

// openInChromium loads the page from a file in headless Chromium and
// returns what the check script found.
func openInChromium(t *testing.T, bin string, page []byte) pageCheck {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, instrument(t, page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions",
		"--user-data-dir="+filepath.Join(dir, "profile"),
		// Nothing may be fetched; should the page try, the name does
		// not resolve and the failed load is an error the check sees.
		"--host-resolver-rules=MAP * ~NOTFOUND",
		"--window-size=1280,2000",
		"--virtual-time-budget=5000",
		"--dump-dom",
		"file://"+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "HOME="+dir) // keep Chromium's files out of the real home
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, tail(stderr.String(), 2000))
	}
	m := dataCheck.FindSubmatch(stdout.Bytes())
	if m == nil {
		t.Fatalf("the check script left no result in the page (it did not run?); DOM starts %q; stderr:\n%s",
			tail(stdout.String(), 300), tail(stderr.String(), 2000))
	}
	var pc pageCheck
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &pc); err != nil {
		t.Fatalf("check result %q: %v", m[1], err)
	}
	return pc
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func TestHTMLInChromium(t *testing.T) {
	t.Parallel()
	bin := findChromium(t)
	for name, runs := range map[string][]Run{
		"single":  {{Name: "results.jsonl", Records: loadRecords(t, resultsFile)}},
		"overlay": overlayRuns(t),
	} {
		t.Run(name, func(t *testing.T) {
			page := renderHTML(t, runs...)
			var ids []string
			for _, f := range parsePage(t, page).all(func(n *node) bool { return n.name == "figure" && n.hasClass("chart") }) {
				ids = append(ids, f.attr("id"))
			}
			if len(ids) == 0 {
				t.Fatal("the page has no charts to check")
			}
			pc := openInChromium(t, bin, page)
			for _, e := range pc.Errors {
				t.Errorf("page error: %s", e)
			}
			if len(pc.Charts) != len(ids) {
				t.Errorf("the browser saw %d charts, the page has %d", len(pc.Charts), len(ids))
			}
			for _, id := range ids {
				c, ok := pc.Charts[id]
				switch {
				case !ok:
					t.Errorf("%s: not found in the browser", id)
				case c.SVG != 1 || c.Width < 100 || c.Height < 100:
					t.Errorf("%s: svg laid out at %.0fx%.0f px", id, c.Width, c.Height)
				case c.Marks == 0 || c.Drawn != c.Marks:
					t.Errorf("%s: %d of %d data marks drawn", id, c.Drawn, c.Marks)
				case c.Paths > 0 && !(c.PathLength > 0):
					t.Errorf("%s: %d line paths of total length %v", id, c.Paths, c.PathLength)
				}
			}
			t.Logf("checked at %s: %d charts", pc.Phase, len(pc.Charts))
		})
	}
}

// TestChromiumCheckCatchesErrors makes sure the browser check can fail: a
// page that tries to fetch an image and throws must report both, and a
// chart with nothing drawn must show zero marks drawn.
func TestChromiumCheckCatchesErrors(t *testing.T) {
	t.Parallel()
	bin := findChromium(t)
	page := []byte(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"/>
<title>broken</title></head><body>
<img src="https://example.invalid/x.png" alt=""/>
<figure class="chart" id="empty"><svg viewBox="0 0 100 100" width="100" height="100"><path class="mark" d=""/></svg></figure>
<script nonce="` + checkNonce + `">console.error("boom"); undefinedFunction();</script>
</body></html>`)
	pc := openInChromium(t, bin, page)
	joined := strings.Join(pc.Errors, "\n")
	for _, want := range []string{"CSP violation", "console.error: boom", "undefinedFunction"} {
		if !strings.Contains(joined, want) {
			t.Errorf("errors %q do not include %q", pc.Errors, want)
		}
	}
	if c := pc.Charts["empty"]; c.Marks != 1 || c.Drawn != 0 {
		t.Errorf("empty chart: %+v, want 1 mark, none drawn", c)
	}
}
