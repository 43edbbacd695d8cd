// Package gen is wattscale's static-site generator. It turns a content
// tree into the site's files: the pages, the calculator and the planner
// prerendered with their defaults, the coefficient report, the hardware
// tables and the validation page with its scores.
//
// [Build] takes its inputs as file trees ([fs.FS]) in [Options]: the
// content tree, the third-party data and the calculator's static assets
// (the command line passes the repository's content/, $DATA_DIR and
// site/assets; the tests pass fstest.MapFS trees), and the WebAssembly
// already compiled by [BuildWasm]. It reads nothing else and returns the
// files by path. [Compress] adds the .br and .gz copies and [Write] puts
// the files in a folder; [FileServer] serves that folder as a static host
// would. Two builds of the same inputs are byte-identical.
//
// This comment is the specification of the content tree: what each file
// may hold and what it becomes.
//
// # Phases
//
// Build runs four phases in order, each a function taking and returning
// plain data:
//
//	load     content fs.FS → *Site    pages, calibrations, validation runs,
//	                                  data files; every malformed file is
//	                                  an error naming file:line
//	compute  *Site → *Computed        the coefficient report (with fits of
//	                                  the Zeus trace when Options.Data has
//	                                  it), the hardware and preset tables,
//	                                  the validation table and its scores
//	                                  (in-sample and held out, by the
//	                                  functions "site validate" calls), the
//	                                  calculator's and the planner's
//	                                  defaults prerendered from the loaded
//	                                  calibrations, and the assets under
//	                                  content-hashed names
//	render   → map[path][]byte        templates compiled into the package,
//	                                  deterministic SVG charts, maths as
//	                                  MathML, the service worker
//	check    links                    every link of every page resolves
//
// # The content tree
//
//	pages/NAME.md           a page, written to NAME/index.html;
//	                        pages/index.md is the home page (index.html).
//	                        At least one page is required.
//	calibrations/NAME.json  one model.Calibration each, whose name is the
//	                        file's (read by content.ReadCalibrations: a
//	                        syntax or type error names file:line); at
//	                        least one is required. The calculator and planner
//	                        start from these: when they differ from those
//	                        compiled into the WebAssembly, the pages hand
//	                        them to it.
//	validation/runs.csv     required: the published runs the validation
//	                        page lists and scores, read by
//	                        validate.ReadRuns; every accelerator must be in
//	                        the hardware table
//	validation/findings.md  what the scores show: rendered on the
//	                        validation page without its h1 and its
//	                        "Headline" section (the page computes that
//	                        table)
//	validation/README.md    the table's documentation: its "How the table
//	                        is scored" section is rendered on the
//	                        validation page. Both files are optional, but
//	                        the validation template requires them.
//	data/NAME.csv           the project's data, each checked to parse with
//	                        a header of distinct names and the same number
//	                        of fields on every line; published-scaling.csv
//	                        is required and feeds the report's speedup
//	                        charts
//	examples/...            example requests and plans, published as they
//	                        are
//
// These files, but the pages, are also published under files/ as they are
// (files/data/published-scaling.csv). Other files of the tree are not
// read.
//
// # Pages
//
// A page is Markdown (goldmark): GitHub's tables, strikethrough, autolinks
// and task lists, footnotes, fenced code highlighted by its language, and
// TeX maths between $…$ (inline) and $$…$$ (display), rendered to MathML
// at build time. Headings get IDs and anchor links. Raw HTML is not passed
// through: a page is Markdown only.
//
// A page starts with YAML front matter between --- lines:
//
//	title        required: the page's <h1> and <title>
//	description  one sentence: <meta name="description"> and the lead
//	             paragraph under the title
//	nav          the page's position in the navigation, from 1; 0 or
//	             absent: not in the navigation
//	nav_title    the navigation's label (default: title)
//	template     what the page is (below; default page)
//	toc          true: a table of contents of the page's h2 headings
//
// Any other key, a missing title, an unknown template or a negative nav is
// an error naming the page.
//
// # Templates
//
// Each template wraps the page's Markdown body in the site's layout (head,
// navigation, footer):
//
//	page        the title, the description, the table of contents and
//	            the body
//	calculator  the fine-tuning calculator, prerendered with its default
//	            estimate (wasm/calcapi/view draws it, as calc.wasm does in
//	            the browser), then the body
//	planner     the distillation planner, prerendered with its default
//	            plan, then the body
//	report      the body, then the coefficient report: the calibrations'
//	            coefficients side by side, then each one's coefficients,
//	            fit statistics, envelope and provenance (with
//	            predicted-against-measured charts of the Zeus trace, or a
//	            note saying why they are left out), the speedup curves
//	            over the published points, the power-limit response and
//	            the published files
//	hardware    the body, then the accelerator and model preset tables and
//	            the defaults of PUE, grid carbon intensity and electricity
//	            price, from package model
//	validation  the body, then the scores of wattscale and two baselines
//	            against validation/runs.csv, the findings, the scoring
//	            rules and every run with its predictions
//
// # Links
//
// A page links to another page by its file name ("methodology.md#the-law")
// and to any other file of the output by its path from the site root
// ("files/data/published-scaling.csv"). The generator makes every link
// relative, so that the site works under any sub-path and from file://. A
// link to a missing page, file or fragment is a build error.
//
// # Output
//
//	index.html, NAME/index.html  the pages
//	embed.html                   the calculator alone, for an iframe in
//	                             another site
//	static/site.css              the site's stylesheet, with the code
//	                             highlighting's classes
//	static/logo.svg              the logo
//	files/...                    the published content files
//	assets/...                   Options.Assets and Options.Wasm; the
//	                             calculator's scripts, stylesheet and
//	                             WebAssembly under content-hashed names
//	                             (assets/calc.0123456789.wasm), mapped
//	                             from their plain names in
//	                             assets/manifest.json
//	_headers                     a year of caching for each hashed asset
//	                             (Netlify, Cloudflare)
//	sw.js                        the service worker that keeps the
//	                             calculator, the planner and their files
//	                             for visits without a network (when
//	                             Options.Assets has calc.js)
package gen
