module github.com/wattscale/wattscale

go 1.26

require (
	github.com/alecthomas/chroma/v2 v2.27.0
	github.com/andybalholm/brotli v1.3.0
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/gohugoio/hugo-goldmark-extensions/passthrough v0.5.0
	github.com/syumai/workers v0.31.0
	github.com/wyatt915/treeblood v0.1.16
	github.com/yuin/goldmark v1.8.7
	github.com/yuin/goldmark-highlighting/v2 v2.0.0-20230729083705-37449abec8cc
	go.abhg.dev/goldmark/frontmatter v0.2.0
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/BurntSushi/toml v1.2.1 // indirect
	github.com/dlclark/regexp2/v2 v2.2.1 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
