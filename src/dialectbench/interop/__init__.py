"""Bridges to other evaluation tools: DialectBench as EleutherAI lm-evaluation-harness tasks
(`lm_eval_export`) and lm-eval results read back into the store (`lm_eval_import`).

A layer above `runner` (it plans icl jobs and picks demonstrations as a run does) and beside `sdqa`; only
`cli` imports it. lm-eval itself is never imported here: the export writes files, the import reads them.
"""
