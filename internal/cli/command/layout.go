package command

import (
	"io"
	"os"

	"github.com/tlsbench/tlsbench/report"
)

// WideFlag is what shows every column of a table laid out to a terminal.
const WideFlag = "--wide"

// TableLayout is how wide a table written to w may be: a terminal's
// width, unless wide (--wide) asks for every column; a file or a pipe
// gets every column, since what reads it is no terminal of a width.
func TableLayout(w io.Writer, wide bool) report.Layout {
	f, ok := w.(*os.File)
	if wide || !ok || !IsTerminal(f.Fd()) {
		return report.Layout{}
	}
	return report.Layout{Width: TerminalWidth(f.Fd()), Wider: WideFlag}
}
