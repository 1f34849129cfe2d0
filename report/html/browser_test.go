package html

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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

// checkBody measures every chart and the layout once the page is parsed,
// and again on load. The layout check finds each table wider than its box
// that no scroll container holds (a table the page would clip, or that
// would widen the page), and each element that reaches beyond the window
// outside a scroll container.
const checkBody = `<script nonce="` + checkNonce + `">
(function () {
  function scroller(el) {
    for (var p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      var o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll") { return p; }
    }
    return null;
  }
  function describe(el) {
    var s = el.tagName.toLowerCase();
    if (el.id) { s += "#" + el.id; }
    if (typeof el.className === "string" && el.className) { s += "." + el.className.split(" ").join("."); }
    var head = el.querySelector && el.querySelector("th, td");
    if (head) { s += " (" + head.textContent.slice(0, 40) + ")"; }
    return s;
  }
  function layout() {
    var vw = document.documentElement.clientWidth; // the window less its scroll bar
    var out = {viewport: vw, scrollWidth: document.documentElement.scrollWidth, tables: 0, scrolled: 0, overflowing: [], beyond: []};
    document.querySelectorAll("table").forEach(function (t) {
      out.tables++;
      var box = t.parentElement.clientWidth;
      var sc = scroller(t);
      if (t.getBoundingClientRect().width > box + 1 || t.scrollWidth > t.clientWidth + 1) {
        if (!sc) {
          out.overflowing.push(describe(t) + ": " + Math.round(t.getBoundingClientRect().width) + " px in a box of " + box + " px, no scroll container");
        } else {
          out.scrolled++;
        }
      }
      if (sc && sc.getBoundingClientRect().right > vw + 1) {
        out.overflowing.push(describe(t) + ": its scroll container reaches " + Math.round(sc.getBoundingClientRect().right) + " px, beyond the window");
      }
    });
    document.querySelectorAll("body *").forEach(function (el) {
      if (out.beyond.length >= 10 || scroller(el)) { return; }
      var b = el.getBoundingClientRect();
      if (b.width > 0 && b.right > vw + 1) {
        out.beyond.push(describe(el) + ": right edge at " + Math.round(b.right) + " px");
      }
    });
    return out;
  }
  function check(phase) {
    var charts = {};
    document.querySelectorAll("figure.chart").forEach(function (fig) {
      var r = {svg: 0, width: 0, height: 0, marks: 0, drawn: 0, paths: 0, pathLength: 0};
      var svg = fig.querySelector("svg");
      if (svg) {
        var box = svg.getBoundingClientRect();
        r.svg = 1; r.width = box.width; r.height = box.height; r.figureWidth = fig.getBoundingClientRect().width;
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
      JSON.stringify({phase: phase, charts: charts, layout: layout(), errors: window.__errors}));
  }
  try { check("parsed"); } catch (e) { window.__errors.push("check failed: " + e); }
  window.addEventListener("load", function () {
    try { check("load"); } catch (e) { window.__errors.push("check failed: " + e); }
  });
})();
</script>
`

type chartCheck struct {
	SVG         int     `json:"svg"`
	Width       float64 `json:"width"`
	Height      float64 `json:"height"`
	FigureWidth float64 `json:"figureWidth"`
	Marks       int     `json:"marks"`
	Drawn       int     `json:"drawn"`
	Paths       int     `json:"paths"`
	PathLength  float64 `json:"pathLength"`
}

type pageCheck struct {
	Phase  string                `json:"phase"`
	Charts map[string]chartCheck `json:"charts"`
	Layout layoutCheck           `json:"layout"`
	Errors []string              `json:"errors"`
}

// layoutCheck is what the layout check found: the window's width and the
// page's, the tables (those wider than their box that scroll in one), and
// what overflows.
type layoutCheck struct {
	Viewport    float64  `json:"viewport"`
	ScrollWidth float64  `json:"scrollWidth"`
	Tables      int      `json:"tables"`
	Scrolled    int      `json:"scrolled"`
	Overflowing []string `json:"overflowing"`
	Beyond      []string `json:"beyond"`
}

// problems lists the layout's faults: a table that overflows without a
// scroll container, an element beyond the window, a page wider than it.
func (l layoutCheck) problems() []string {
	out := slices.Clone(l.Overflowing)
	for _, b := range l.Beyond {
		out = append(out, "beyond the window: "+b)
	}
	if l.ScrollWidth > l.Viewport {
		out = append(out, fmt.Sprintf("the page is %.0f px wide in a window of %.0f px", l.ScrollWidth, l.Viewport))
	}
	return out
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

// openInChromium loads the page from a file in headless Chromium at the
// default window width and returns what the check script found.
func openInChromium(t *testing.T, bin string, page []byte) pageCheck {
	t.Helper()
	return openAt(t, bin, page, 1280, "")
}

// windowHeight is the height of the window the page is opened in: what a
// screenshot shows.
const windowHeight = 2000

// openAt loads the page in headless Chromium in a window width px wide,
// and writes a screenshot of the window to screenshot unless it is "".
func openAt(t *testing.T, bin string, page []byte, width int, screenshot string) pageCheck {
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
		"--window-size="+strconv.Itoa(width)+","+strconv.Itoa(windowHeight),
		"--virtual-time-budget=5000",
		"--dump-dom")
	if screenshot != "" {
		cmd.Args = append(cmd.Args, "--screenshot="+screenshot)
	}
	cmd.Args = append(cmd.Args, "file://"+path)
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
	if testing.Short() {
		t.Skip("-short: a real browser (Chromium) renders the page")
	}
	t.Parallel()
	bin := findChromium(t)
	for name, runs := range map[string][]Run{
		"single":  {{Name: "results.jsonl", Records: loadRecords(t, resultsFile)}},
		"overlay": overlayRuns(t),
	} {
		t.Run(name, func(t *testing.T) {
			page := renderHTML(t, runs...)
			ids := chartIDs(t, page)
			pc := openInChromium(t, bin, page)
			for _, e := range pc.Errors {
				t.Errorf("page error: %s", e)
			}
			checkCharts(t, pc, ids)
			t.Logf("checked at %s: %d charts", pc.Phase, len(pc.Charts))
		})
	}
}

// TestHTMLLayoutInChromium opens the pages of a default run's results,
// an interleaved run's and a find-rate run's in windows of a laptop's
// width and of a narrow one: no table may overflow its box unless it
// scrolls in its own, nothing may reach beyond the window, every chart
// must be drawn at the width of the page's content, and a screenshot of
// each is a PNG of the window's width.
func TestHTMLLayoutInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a real browser (Chromium) renders the page")
	}
	t.Parallel()
	bin := findChromium(t)
	pages := []struct {
		name string
		file string
		// chart is one chart the page must draw.
		chart string
	}{
		{"default", resultsFile, "chart-cpu"},
		{"interleaved", pairedFile, "chart-ratio"},
		{"findrate", findRateFile, "chart-cpu"},
	}
	for _, p := range pages {
		page := renderHTML(t, Run{Name: p.file, Records: loadRecords(t, p.file)})
		ids := chartIDs(t, page)
		if !slices.Contains(ids, p.chart) {
			t.Errorf("%s: the page has no %s; it has %q", p.name, p.chart, ids)
		}
		for _, width := range []int{1400, 800} {
			t.Run(fmt.Sprintf("%s/%d", p.name, width), func(t *testing.T) {
				t.Parallel()
				shot := filepath.Join(t.TempDir(), "page.png")
				pc := openAt(t, bin, page, width, shot)
				for _, e := range pc.Errors {
					t.Errorf("page error: %s", e)
				}
				for _, pr := range pc.Layout.problems() {
					t.Errorf("layout: %s", pr)
				}
				if pc.Layout.Tables == 0 {
					t.Error("the layout check found no table")
				}
				checkCharts(t, pc, ids)
				checkScreenshot(t, shot, width)
				t.Logf("%d px: %d tables (%d scroll in their box), page %.0f px wide in %.0f, %d charts",
					width, pc.Layout.Tables, pc.Layout.Scrolled, pc.Layout.ScrollWidth, pc.Layout.Viewport, len(pc.Charts))
			})
		}
	}
}

// chartIDs are the ids of the page's charts.
func chartIDs(t *testing.T, page []byte) []string {
	t.Helper()
	var ids []string
	for _, f := range parsePage(t, page).all(func(n *node) bool { return n.name == "figure" && n.hasClass("chart") }) {
		ids = append(ids, f.attr("id"))
	}
	if len(ids) == 0 {
		t.Fatal("the page has no charts to check")
	}
	return ids
}

// checkCharts checks that the browser drew every chart of ids, each at
// the full width of its figure.
func checkCharts(t *testing.T, pc pageCheck, ids []string) {
	t.Helper()
	if len(pc.Charts) != len(ids) {
		t.Errorf("the browser saw %d charts, the page has %d", len(pc.Charts), len(ids))
	}
	for _, id := range ids {
		c, ok := pc.Charts[id]
		switch {
		case !ok:
			t.Errorf("%s: not found in the browser", id)
		case c.SVG != 1 || c.Width < 100 || c.Height < 60:
			t.Errorf("%s: svg laid out at %.0fx%.0f px", id, c.Width, c.Height)
		case c.Width < c.FigureWidth-1:
			t.Errorf("%s: svg %.0f px wide in a figure of %.0f px: not the full width", id, c.Width, c.FigureWidth)
		case c.Marks == 0 || c.Drawn != c.Marks:
			t.Errorf("%s: %d of %d data marks drawn", id, c.Drawn, c.Marks)
		case c.Paths > 0 && !(c.PathLength > 0):
			t.Errorf("%s: %d line paths of total length %v", id, c.Paths, c.PathLength)
		}
	}
}

// checkScreenshot checks that path is a PNG width px wide that shows
// something: not one color throughout.
func checkScreenshot(t *testing.T, path string, width int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	b := img.Bounds()
	if b.Dx() != width || b.Dy() != windowHeight {
		t.Errorf("screenshot is %dx%d px, want %dx%d", b.Dx(), b.Dy(), width, windowHeight)
	}
	first := img.At(b.Min.X, b.Min.Y)
	r0, g0, b0, _ := first.RGBA()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			if r, g, bl, _ := img.At(x, y).RGBA(); r != r0 || g != g0 || bl != b0 {
				return
			}
		}
	}
	t.Errorf("screenshot %s is one color throughout", path)
}

// TestChromiumCheckCatchesErrors makes sure the browser check can fail: a
// page that tries to fetch an image and throws must report both, a chart
// with nothing drawn must show zero marks drawn, and a table wider than
// the window outside a scroll container must be found, with the page it
// widens.
func TestChromiumCheckCatchesErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a real browser (Chromium) renders the page")
	}
	t.Parallel()
	bin := findChromium(t)
	page := []byte(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"/>
<title>broken</title></head><body>
<img src="https://example.invalid/x.png" alt=""/>
<table><tr><td>` + strings.Repeat("wide", 200) + `</td></tr></table>
<div class="scroll" style="overflow-x: auto"><table><tr><td>` + strings.Repeat("scrolls", 200) + `</td></tr></table></div>
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
	l := pc.Layout
	if len(l.Overflowing) != 1 || !strings.Contains(l.Overflowing[0], "(wide") || !strings.Contains(l.Overflowing[0], "no scroll container") {
		t.Errorf("overflowing tables %q, want the one outside a scroll container", l.Overflowing)
	}
	if l.Tables != 2 || l.Scrolled != 1 {
		t.Errorf("%d tables, %d scrolled in their box; want 2, 1", l.Tables, l.Scrolled)
	}
	if !(l.ScrollWidth > l.Viewport) || !slices.ContainsFunc(l.problems(), func(s string) bool { return strings.HasPrefix(s, "the page is") }) {
		t.Errorf("a page widened by a table: %+v, problems %q", l, l.problems())
	}
}
