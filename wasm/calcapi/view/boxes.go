package view

// The boxes below the calculator and the planner that work through the
// on-demand module (wasm/fit): "Paste from Hugging Face" and the refit.
// The generator writes them into the page, hidden; calc.js shows them once
// the calculator has started (without JavaScript they could do nothing)
// and hands their events to fit.wasm, loaded on the first. fit.wasm draws
// what they answer (HFTook, FitReport, FitDone) and says each step in
// their status (Status, below: every sentence the boxes say is here).

import (
	"math"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// HFBox is the "Paste from Hugging Face" box: a run's config.json, trainer
// arguments and adapter_config.json, pasted or dropped, fill where (words:
// "the form above"). pick adds the planner's "Option to fill" choice
// (calc.js fills its options). offline is the single-file copy's box,
// which says where to read the files instead.
func HFBox(where string, pick, offline bool) string {
	var b strings.Builder
	b.WriteString(`<section class="hf-import" aria-labelledby="hf-h" hidden><h2 id="hf-h">Paste from Hugging Face</h2>`)
	if offline {
		b.WriteString(`<p>Reading Hugging Face files is not part of this single-file copy. Use it on the full site, or run <code>go run ./site estimate -hf-config config.json -hf-args training_args.json -peft adapter_config.json</code>.</p></section>`)
		return b.String()
	}
	b.WriteString(`<p>Paste or drop the files your run is described by: the model's <code>config.json</code>, the trainer's arguments as JSON (<code>TrainingArguments</code> or TRL names) and PEFT's <code>adapter_config.json</code> (with a QLoRA run's <code>BitsAndBytesConfig</code> keys). They fill ` + esc(where) + `; a field you type afterwards wins. Nothing leaves this page.</p>`)
	if pick {
		b.WriteString(`<div class="field"><label for="hf-row">Option to fill</label><select id="hf-row"></select></div>`)
	}
	b.WriteString(`<div class="field"><label for="hf-text">Files (one or more JSON objects)</label><textarea id="hf-text" rows="5" spellcheck="false"></textarea></div>` +
		`<div class="hf-btns"><button type="button" class="btn primary" id="hf-go">Fill the form</button></div>` +
		`<div class="hf-status" role="status" aria-live="polite" data-fail="Could not start the importer"></div><div class="hf-out"></div></section>`)
	return b.String()
}

// HFTook is what the Hugging Face box lists after reading the files: each
// key of each file, the field it filled and how it was used, then the
// notes an estimate of the files would add.
func HFTook(took []model.Imported, notes []string) string {
	var b strings.Builder
	b.WriteString(`<div class="hf-scroll" tabindex="0" role="region" aria-label="What each key gave"><table class="hf-took small"><caption>What each key gave</caption><thead><tr><th scope="col">File</th><th scope="col">Key</th><th scope="col">Value</th><th scope="col">Field</th><th scope="col">Use</th></tr></thead><tbody>`)
	for _, t := range took {
		b.WriteString(`<tr><td><code>` + esc(t.File) + `</code></td><td><code>` + esc(t.Key) + `</code></td><td><code>` + esc(t.Value) + `</code></td><td>`)
		if t.Field != "" {
			b.WriteString(`<code>` + esc(t.Field) + `</code>`)
		}
		b.WriteString(`</td><td>` + esc(t.Use))
		if t.Note != "" {
			b.WriteString(` (` + esc(t.Note) + `)`)
		}
		b.WriteString(`</td></tr>`)
	}
	b.WriteString(`</tbody></table></div>`)
	for _, n := range notes {
		b.WriteString(`<p class="small">` + esc(n) + `</p>`)
	}
	return b.String()
}

// RefitBox is the refit's box: a measurement CSV (or a CodeCarbon log and
// the requests describing its rows) in, a fit of the chosen kind out, run
// in the page by fit.wasm, whose size as built it states (raw and gzip
// bytes; not stated when raw is 0). offline is the single-file copy's box,
// which names the command instead.
func RefitBox(raw, gzip int, offline bool) string {
	const head = `<section class="refit" aria-labelledby="refit-h" hidden><h2 id="refit-h">Refit the law to your own measurements</h2>`
	if offline {
		return head + `<p>The refit is not part of this single-file copy. Use it on the full site, or run <code>go run ./site fit -data FILE.csv</code>.</p></section>`
	}
	size := ""
	if raw > 0 {
		mb := func(n int) string { return ToFixed(float64(n)/1e6, 1) }
		gz, attr := "", ""
		if gzip > 0 {
			gz, attr = ", "+mb(gzip)+" MB compressed", ` data-gzip-mb="`+mb(gzip)+`"`
		}
		size = ` (<span class="fit-size" data-raw-mb="` + mb(raw) + `"` + attr + `>fit.wasm: ` + mb(raw) + ` MB` + gz + `</span>)`
	}
	return head +
		`<p>Upload runs you measured, one row per run, in the project's CSV schema (columns <code>model</code> or the shape, <code>gpu</code>, <code>count</code>, <code>strategy</code>, <code>seq_len</code>, <code>batch_per_gpu</code>, <code>tokens</code>, <code>precision</code>, <code>energy_kwh</code>, <code>duration_s</code>, and for the paper's specification <code>eta</code>, each multi-GPU run's measured efficiency T₁/(N·T<sub>N</sub>), and <code>group</code>; the Zeus power trace also works). ` +
		`The fit runs in this page, in the background, with a separate module loaded only now` + size + `; nothing is uploaded anywhere.</p>` +
		`<p class="small">No measurements yet? <a class="sample-dl" href="#" download="wattscale-sample-synthetic.csv">Download a sample CSV</a> or <button type="button" class="btn small" id="refit-sample">put it in the box</button>. ` +
		`<span class="muted">Its rows are synthetic, not measurements: BERT-base and BERT-large runs on V100s computed from the paper's published law (calibration zoubeirou2026-bert-pooled, Zoubeirou a Mayaki 2026, arXiv 2606.23546) with 10 % noise and each run's parallel efficiency in its eta column, so a law fit gives the law's coefficients back within about two standard errors; the roofline fit, another model, fails its checks on it.</span></p>` +
		`<div class="refit-in"><div class="field"><label for="refit-file">Measurement CSV file</label><input type="file" id="refit-file" accept=".csv,text/csv"></div>` +
		`<div class="field"><label for="refit-text">or paste the CSV</label><textarea id="refit-text" rows="4" spellcheck="false"></textarea></div>` +
		`<div class="field"><label for="refit-kind">Fit</label><select id="refit-kind"><option value="law">Log-linear law, hardware terms</option><option value="paper">Paper's spec. (measured η)</option><option value="roofline">Roofline model</option></select></div>` +
		`<div class="field wide"><label for="refit-cc">A CodeCarbon emissions.csv? The requests describing its rows (JSON: {"request": …} or {"projects": {"NAME": …}}; empty for a measurement CSV)</label><textarea id="refit-cc" rows="3" spellcheck="false"></textarea></div>` +
		`<div class="field"><label for="refit-scope">CodeCarbon energy</label><select id="refit-scope"><option value="gpu">gpu_energy: the GPUs</option><option value="total">energy_consumed: GPUs, CPU and RAM</option></select></div>` +
		`<div class="refit-btns"><button type="button" class="btn primary" id="refit-go">Fit</button> <button type="button" class="btn" id="refit-cancel" hidden>Cancel</button></div></div>` +
		`<div class="refit-progress" hidden><progress aria-label="Fitting"></progress> <span class="refit-elapsed"></span></div>` +
		`<div class="refit-status" role="status" aria-live="polite" data-fail="The fitting module could not run"></div><div class="refit-out"></div></section>`
}

// FitDone is the refit's status line once a fit has run: the
// calibration's name, the rows it read and the time since the user asked
// (seconds), and whether it failed its checks (the report below says
// which).
func FitDone(name string, rows int, seconds float64, failed bool) string {
	s := "Fitted " + name + " on " + strconv.Itoa(rows) + " rows in " + Duration(seconds)
	if failed {
		return s + "; it failed its checks (below)."
	}
	return s + "."
}

// Status is a line a box says in its status element: its kind (info,
// success, warning or error: how the page styles it, and an error is
// announced at once) and its words. The functions below make every one.
type Status struct{ Kind, Text string }

// HFReading is the Hugging Face box's line while it reads the files.
func HFReading() Status { return Status{"info", "Reading the files…"} }

// HFFilled is the Hugging Face box's line once the files filled the
// form: the fields filled, the keys the files gave and those the page
// could not take (left; a warning then).
func HFFilled(fields, keys int, left []string) Status {
	s := "Filled " + strconv.Itoa(fields) + " fields from " + strconv.Itoa(keys) + " keys."
	if len(left) == 0 {
		return Status{"success", s}
	}
	return Status{"warning", s + " Not taken here: " + strings.Join(left, ", ") + "."}
}

// HFFailed is the Hugging Face box's line for files it could not read
// (the error as the estimate's reader words it).
func HFFailed(text string) Status { return Status{"error", text} }

// RefitNoCSV is the refit's line when Fit is asked for with no CSV.
func RefitNoCSV() Status { return Status{"warning", "Choose a CSV file or paste one first."} }

// RefitNotJSON is the refit's line when the CodeCarbon requests are not
// JSON (the reader's error).
func RefitNotJSON(err string) Status {
	return Status{"error", "The CodeCarbon requests are not JSON: " + err}
}

// RefitLoading is the refit's first step: fit.wasm starting in the
// background.
const RefitLoading = "Loading the fitting module"

// RefitFitting is the refit's step while it fits rows runs by a fit of
// kind (law, paper or roofline).
func RefitFitting(rows int, kind string) string {
	what := "log-linear law"
	if kind == "roofline" {
		what = "roofline model, a few seconds"
	}
	return "Fitting " + strconv.Itoa(rows) + " rows (" + what + ")"
}

// RefitStep is the refit's line while it is at step (RefitLoading,
// RefitFitting).
func RefitStep(step string) Status { return Status{"info", step + "…"} }

// RefitElapsed is the line beside the progress bar: the step and the
// whole seconds since the fit was asked for.
func RefitElapsed(step string, seconds float64) string {
	return step + ": " + strconv.Itoa(int(math.Round(seconds))) + " s (the form stays usable)"
}

// RefitCancelled is the refit's line after Cancel.
func RefitCancelled() Status { return Status{"info", "Cancelled: the form is as it was."} }

// RefitBroken is the refit's line when the fitting module failed (its
// error), as opposed to the fit (RefitFailed).
func RefitBroken(err string) Status {
	return Status{"error", "The fitting module could not run: " + err}
}

// RefitFailed is the refit's line for a fit that could not be made (its
// error, as the command line prints it).
func RefitFailed(err string) Status { return Status{"error", "The fit failed: " + err} }

// RefitDone is the refit's line for a fit made: FitDone's words (said), a
// warning when the fit failed its checks.
func RefitDone(said string, failed bool) Status {
	if failed {
		return Status{"warning", said}
	}
	return Status{"success", said}
}

// RefitUsed is the note under a fit the calculator now uses, by the name
// it took (failed: used although it failed its checks).
func RefitUsed(name string, failed bool) string {
	s := "The calculator above now uses " + name + " (yours, kept in this browser"
	if failed {
		s += ", marked as failing its checks"
	}
	return s + "; choose it again under Calibration any time)."
}

// RefitNotUsed is the note under a fit the calculator refused (its
// words for why).
func RefitNotUsed(err string) string { return "Could not use it: " + err }

// The page's own sentences that calc.js shows, carried by the markup as
// data attributes (it composes none): the status line while an edit waits
// for the WebAssembly (data-pending), the recommender's panel when its
// search fails (data-fail, before the error) and the copy buttons'
// answers (data-copied, data-copy-failed).
const (
	PendingText  = "Your change is computed as soon as the calculator has loaded: the figures below are the previous estimate."
	AdviceFailed = "Could not search cheaper configurations"
	CopyDone     = "Copied"
	CopyFailed   = "Select and copy by hand"
)
