#!/bin/sh
# Writes the gpusim(1) manual page, in roff, on stdout, from the program's
# own help: the command list of `gpusim --help` and each command's
# `gpusim COMMAND --help` (the option tables the commands parse with), so
# that the page cannot say other than the program.
#
#   tools/gpusim-man.sh tools/gpusim > gpusim.1
set -eu
prog=${1:?usage: gpusim-man.sh PATH/TO/gpusim}
version=$("$prog" --version | awk '{ print $2 }')

# Turns one --help text into roff: the usage line in bold, paragraphs as
# they are, option tables as tagged paragraphs, indented lines (examples,
# file excerpts) verbatim.  The help option itself is left out.
format_help ()
{
  awk '
    function esc(s) {
      gsub(/\\/, "\\e", s)
      gsub(/-/, "\\-", s)
      if (s ~ /^[.\047]/) s = "\\&" s
      return s
    }
    function close_nf() { if (nf) { print ".fi"; print ".RE"; nf = 0 } }
    /^Usage:$/ { usage = 1; next }
    usage {
      usage = 0; sub(/^ +/, ""); sub(/ - .*$/, "")
      print ".PP"; print ".B " esc("gpusim " $0); next
    }
    /^Help Options:$/ { skip = 1; next }
    skip && /^$/ { skip = 0; next }
    skip { next }
    /^(Application )?Options:$/ { close_nf(); opts = 1; print ".PP"; print "Options:"; next }
    opts && /^  -/ {
      line = $0; sub(/^ +/, "", line)
      n = match(line, /  +/)
      flag = n ? substr(line, 1, n - 1) : line
      desc = n ? substr(line, n + RLENGTH) : ""
      if (flag ~ /(^|, )--help$/) next
      print ".TP"; print "\\fB" esc(flag) "\\fR"; print esc(desc); next
    }
    opts && /^$/ { opts = 0; next }
    /^[A-Z][A-Za-z ]*:$/ { close_nf(); print ".PP"; print esc($0); next }
    /^  / { if (!nf) { print ".RS"; print ".nf"; nf = 1 } sub(/^  /, ""); print esc($0); next }
    /^$/ { close_nf(); print ".PP"; next }
    { close_nf(); print esc($0) }
    END { close_nf() }
  ' | ascii
}

# roff reads ASCII: the few other characters the help texts use become
# roff's named glyphs.
ascii ()
{
  sed -e 's/\xe2\x80\xa6/.../g' -e 's/\xc2\xb1/\\(+-/g' -e 's/\xc3\x97/\\(mu/g' \
      -e 's/\xe2\x80\x93/\\(en/g' -e 's/\xe2\x80\x94/\\(em/g' -e 's/\xc2\xb0/\\(de/g'
}

cat <<HEAD
.TH GPUSIM 1 "" "gpusim $version" "User Commands"
.SH NAME
gpusim \\- simulate GPU clusters: hardware, workload and scheduling
.SH SYNOPSIS
.B gpusim
.I COMMAND
.RI [ OPTION ...]
.br
.B gpusim
.B \\-\\-help
|
.B \\-\\-version
.SH DESCRIPTION
gpusim is a discrete-event simulator of GPU clusters.  A scenario, a small
INI file, describes a cluster (pools of catalogue nodes), a workload (a
synthetic mix or a real trace) and a scheduling policy; \\fBgpusim run\\fR
simulates it and prints wait and completion times, slowdown, utilization,
queue length and fragmentation.  The same scenario and seed always give
byte-identical results.  Every key of every scenario section is listed by
\\fBgpusim keys\\fR.
.SH COMMANDS
HEAD

"$prog" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' |
while read -r cmd; do
  summary=$("$prog" --help | awk -v c="$cmd" '$1 == c { $1 = ""; sub(/^ +/, ""); print }')
  printf '.SS %s\n%s.\n' "$cmd" "$summary" | sed 's/-/\\-/g' | ascii
  if [ "$cmd" = trace ]; then
    # trace has subcommands, each with its own options.
    for sub in info convert fetch; do
      "$prog" trace "$sub" --help | sed "2s/^  $sub /  trace $sub /" | format_help
    done
  else
    "$prog" "$cmd" --help | format_help
  fi
done

cat <<'TAIL'
.SH EXIT STATUS
0 on success, 1 when the input is wrong (a scenario, a trace or a file;
the message names the file, the line, the section and key, and what was
expected), 2 on a usage error (an unknown option, a missing argument, or a
\fB\-\-set\fR not of the form SECTION.KEY=VALUE).
.SH ENVIRONMENT
.TP
.B GPUSIM_MODEL_PATH
Colon-separated folders of hardware models read after the installed
catalogue; a later model replaces one of the same name.
.TP
.B GPUSIM_TRACE_DIR
The folder \fBgpusim trace fetch\fR writes traces into and \fBgpusim fgd\fR
reads the openb node and pod lists from (\fIopenb/\fR under it).  Unset,
both use \fIdata/traces/\fR in a checkout, else the installed traces'
folder.
.TP
.B GPUSIM_HUGE_PAGES
Set to 0 to keep \fBrun\fR, \fBcompare\fR, \fBsweep\fR, \fBseek\fR and
\fBreport\fR from starting again with glibc's malloc asking for
transparent huge pages (\fIGLIBC_TUNABLES=glibc.malloc.hugetlb=1\fR), which
they do where the kernel gives huge pages only on request and
\fBGLIBC_TUNABLES\fR is unset: a large cluster's run is some 5 % quicker.
.SH FILES
The hardware catalogue, the ready scenarios and the shipped traces with
their fetch registry are installed under the package's data folder
(\fImodels/\fR, \fIscenarios/\fR, \fIdata/traces/\fR).
.SH EXAMPLES
.nf
gpusim run scenarios/quickstart.ini
gpusim run scenarios/quickstart.ini \-\-set policy.placement=best\-fit
gpusim compare scenarios/quickstart.ini \-\-policy first\-fit \-\-policy best\-fit \-\-seeds 5
gpusim keys workload
gpusim trace fetch \-\-list
.fi
.SH SEE ALSO
The guide in the source tree's \fIdocs/\fR folder, and its scenario-key
reference, \fIdocs/keys.md\fR.
TAIL
