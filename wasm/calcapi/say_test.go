package calcapi

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestEveryCodeSaysTheFormsWords walks every message code (model's, the
// planner's and the charts'): in the page's words (Say) none writes a
// request path, a bare JSON key or a GPU id, whatever its values; paths
// among its values are given as the request paths a producer passes.
func TestEveryCodeSaysTheFormsWords(t *testing.T) {
	placeholder := regexp.MustCompile(`\{([a-z_0-9]+)(?::([^}]*))?\}`)
	bad := []string{"training.", "hardware.", "model.", "site.", "strategy.", "batch_per_gpu", "gradient_checkpointing", "gradient_accumulation", "seq_len", "state_bytes_per_param", "h100-sxm5", "a100-sxm4-80gb"}
	paths := []string{"training.seq_len", "training.batch_per_gpu", "training.gradient_accumulation", "training.gradient_checkpointing", "training.state_bytes_per_param",
		"training.method", "training.lora.rank", "training.lora.targets", "training.lora.base_format", "training.lora.compute_dtype", "training.precision",
		"training.compile", "training.attention", "training.stack", "training.tokens", "training.dataset_tokens", "site.pue", "site.carbon_g_per_kwh", "site.usd_per_kwh", "hardware.power_limit_w", "model.hf_config", "training.hf_args"}
	for _, code := range model.Codes() {
		if code == model.CodeNote {
			continue
		}
		tx, _ := model.TextOf(code)
		for _, p := range paths {
			var args model.Args
			for _, m := range placeholder.FindAllStringSubmatch(tx.Tech+tx.Plain, -1) {
				if _, ok := args.Get(m[1]); ok {
					continue
				}
				a := model.Arg{Name: m[1], Num: 3}
				switch m[2] {
				case "path", "key":
					a.Str = p
				case "gpu", "agpu":
					a.Str = "h100-sxm5"
				case "gpulist":
					a.List = []string{"h100-sxm5", "a100-sxm4-80gb"}
				case "or":
					a.List = []string{"fsdp"}
				case "list", "semilist", "orlist":
					a.Msgs = []model.Message{{Code: model.CodeAdvicePEFT, Args: model.Args{{Name: "method", Str: "training.method"}}}}
				case "q":
					a.Str = "x"
				}
				args = append(args, a)
			}
			s := Say(model.Message{Code: code, Args: args})
			for _, b := range bad {
				if strings.Contains(s, b) {
					t.Errorf("%s with %s: the page would show %q: %s", code, p, b, s)
				}
			}
		}
	}
}
