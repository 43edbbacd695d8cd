package distill_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model/distill"
)

// TestLoRAStudent: a plan's student stage may be a LoRA fine-tune (the
// estimate request's training.method); its energy is below the same
// student trained in full, and a bad LoRA option is named with its path.
func TestLoRAStudent(t *testing.T) {
	cat := catalog(t)
	raw, err := os.ReadFile("../../content/examples/plan-paper-estimated.json")
	if err != nil {
		t.Fatal(err)
	}
	full, err := distill.ParsePlan(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	lora := []byte(strings.Replace(string(raw), `"gradient_checkpointing": true}`, `"gradient_checkpointing": true, "method": "lora", "lora": {"rank": 16}}`, 1))
	p, err := distill.ParsePlan(bytes.NewReader(lora))
	if err != nil {
		t.Fatalf("ParsePlan with a lora student: %v", err)
	}
	if string(lora) == string(raw) {
		t.Fatal("the example plan has no student training block to edit")
	}
	rf, rl := evaluate(t, cat, full), evaluate(t, cat, p)
	name := rl.Options[0].Name
	sf, sl := option(t, rf, name).TotalKWh, option(t, rl, name).TotalKWh
	if !(sl < sf) {
		t.Errorf("%s with a lora student: %.4g kWh, not below the full student's %.4g kWh", name, sl, sf)
	}
	bad := []byte(strings.Replace(string(raw), `"gradient_checkpointing": true}`, `"gradient_checkpointing": true, "method": "lora", "lora": {"rnak": 16}}`, 1))
	_, err = distill.ParsePlan(bytes.NewReader(bad))
	if err == nil || !strings.Contains(err.Error(), "student.training.lora.rnak") {
		t.Errorf("ParsePlan with lora.rnak: error %v, want one naming student.training.lora.rnak", err)
	}
}
