// Package distill plans LLM distillation pipelines by their energy: the
// end-to-end accounting of Lambert & Luccioni, "Towards Resource-Efficient
// LLMs: End-to-End Energy Accounting of Distillation Pipelines" (ICML 2026,
// arXiv 2605.13981).
//
// A Plan lists options (pipelines) a user compares. Each option has a
// regime (direct SFT, logit KD, or synthetic-data SFT) and five
// non-overlapping stages,
//
//	E_total = E_prerun + E_preprocess + E_teacher + E_student + E_eval,
//
// each filled in one of three ways: measured (stages_kwh, kWh the user
// measured), preset (the paper's published stage table, Presets), or
// estimated from a configuration (the student stage through the fine-tuning
// estimate, model.Catalog.Estimate; the teacher, evaluation, preprocessing
// and prerun stages from the physics in estimate.go, with every assumption
// stated in the result).
//
// Evaluate turns a plan into a Result: per option the stage breakdown with
// energy, time, tokens, J/token, CO2e and cost; the amortised per-student
// energy Ē(N) = E_teacher/N + E_student for N = 1…50; the break-even reuse
// count N* = E_teacher / (E_student_SFT − E_student_distill) against the
// option's direct-SFT baseline; the serving threshold
// T* = E_extra·3.6e6 / (j_ref − j_student) when serving energies are given;
// the energy–quality Pareto set; and the paper's design rules applied to the
// user's numbers as plain sentences. When a break-even does not exist the
// result says so with a reason, never with a negative or infinite number.
//
// Teacher outputs are assets: an option may name share_teacher_with to reuse
// another option's teacher stage, whose energy is then counted once, in the
// option that produces it. Hyperparameter sweeps (a KD α/temperature grid,
// several max_new_tokens) are extra options that share or regenerate the
// teacher work.
//
// The package uses the standard library and package model only. Results
// carry plain floats; the JSON field names are a public interface
// (APIVersion).
package distill
