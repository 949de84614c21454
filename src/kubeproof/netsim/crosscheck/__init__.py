"""The cross-check of netsim's NetworkPolicy verdicts against an evaluator kubeproof did not
write (docs/netsim.md, "Cross-check"): seeded random cases (`cases`), the independent
engine built from the Go module proxy (`engine`), and the comparison with every
disagreement put in an explained class (`compare`)."""
