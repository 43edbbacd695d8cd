package distill

import (
	"math"
	"sort"
)

// PerStudentKWh is the amortised energy per student when n students share
// one teacher stage: Ē(n) = teacherKWh/n + studentKWh (the paper's
// Ē_distill(N), section 4). It panics for n < 1 (programmer misuse).
func PerStudentKWh(teacherKWh, studentKWh float64, n int) float64 {
	if n < 1 {
		panic("distill: PerStudentKWh needs n >= 1")
	}
	return teacherKWh/float64(n) + studentKWh
}

// NStar is the break-even reuse count
//
//	N* = E_teacher / (E_student_SFT − E_student_distill),
//
// the number of students sharing the teacher's outputs above which
// distillation uses less energy per student than direct SFT
// (Ē_distill(N) < E_student_SFT for N > N*). ok is false when the distilled
// student is not cheaper than the SFT student: then it never breaks even and
// n is 0, never a negative or infinite number. Preprocessing and evaluation
// are equal in both pipelines and cancel.
func NStar(teacherKWh, sftStudentKWh, distillStudentKWh float64) (n float64, ok bool) {
	d := sftStudentKWh - distillStudentKWh
	if !(d > 0) || !(teacherKWh >= 0) {
		return 0, false
	}
	n = teacherKWh / d
	if math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, false
	}
	return n, true
}

// TStar is the serving threshold in tokens,
//
//	T* = E_extra[kWh] · 3.6e6 / (j_ref − j_student),
//
// the number of served tokens after which serving with the student instead
// of the reference model (j in joules per token) has repaid extraKWh of
// training energy. ok is false when the student does not use less energy per
// token than the reference (j_ref ≤ j_student): serving never repays it.
func TStar(extraKWh, jRef, jStudent float64) (tokens float64, ok bool) {
	d := jRef - jStudent
	if !(d > 0) || !(extraKWh >= 0) {
		return 0, false
	}
	t := extraKWh * 3.6e6 / d
	if math.IsInf(t, 0) || math.IsNaN(t) {
		return 0, false
	}
	return t, true
}

// Point is one option on the energy–quality plane.
type Point struct {
	Name      string  `json:"name"`
	EnergyKWh float64 `json:"energy_kwh"`
	Quality   float64 `json:"quality"`
}

// dominates reports whether a dominates b: no more energy, no less quality,
// and strictly better in one of the two.
func dominates(a, b Point) bool {
	return a.EnergyKWh <= b.EnergyKWh && a.Quality >= b.Quality &&
		(a.EnergyKWh < b.EnergyKWh || a.Quality > b.Quality)
}

// Pareto splits points into the Pareto-efficient set (minimum energy,
// maximum quality), returned as indices in order of increasing energy, and,
// for every point, the indices of the points that dominate it (nil for
// efficient points). Points with equal energy and quality do not dominate
// each other. It is O(n²), fine for the options of one plan.
func Pareto(points []Point) (front []int, dominatedBy [][]int) {
	dominatedBy = make([][]int, len(points))
	for i := range points {
		for j := range points {
			if i != j && dominates(points[j], points[i]) {
				dominatedBy[i] = append(dominatedBy[i], j)
			}
		}
		if dominatedBy[i] == nil {
			front = append(front, i)
		}
	}
	sort.SliceStable(front, func(a, b int) bool {
		pa, pb := points[front[a]], points[front[b]]
		if pa.EnergyKWh != pb.EnergyKWh {
			return pa.EnergyKWh < pb.EnergyKWh
		}
		return pa.Quality > pb.Quality
	})
	return front, dominatedBy
}
