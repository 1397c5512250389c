#!/usr/bin/env python3
"""Long-fact variants of the LoCoMo development split, for `holomem eval`.

Usage: python3 make.py LOCOMO_DIR OUT_DIR

Writes two eval files (see the eval package doc for the format):

  mixed.jsonl     every turn as a short fact (the gold answers) plus every
                  session as one long transcript fact (a distractor that
                  holds the same words, like a changelog holding a commit)
  sessions.jsonl  only the session transcripts; a question's gold is the
                  session(s) holding its evidence

Then: holomem eval OUT_DIR/mixed.jsonl --no-model --undated
"""
import collections
import json
import os
import sys

src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
turns = [json.loads(l) for l in open(os.path.join(src, "turns.jsonl"))]
qa = [json.loads(l) for l in open(os.path.join(src, "qa.jsonl"))]
sessions = collections.defaultdict(list)
for t in turns:
    sessions[(t["conv_id"], t["session"])].append(t)
session_of = {}
cats = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
with open(os.path.join(out, "mixed.jsonl"), "w") as mixed, open(os.path.join(out, "sessions.jsonl"), "w") as only:
    for t in turns:
        mixed.write(json.dumps({"kind": "fact", "key": t["dia_id"], "text": t["speaker"] + ": " + t["text"],
                                "namespace": t["conv_id"], "category": "chat"}) + "\n")
    for (conv, s), ts in sorted(sessions.items()):
        key = "S%d" % s
        for t in ts:
            session_of[(conv, t["dia_id"])] = key
        rec = {"kind": "fact", "key": key, "text": "\n\n".join(t["speaker"] + ": " + t["text"] for t in ts),
               "namespace": conv, "category": "doc"}
        mixed.write(json.dumps(rec) + "\n")
        only.write(json.dumps(rec) + "\n")
    for q in qa:
        ev = [e for e in q["evidence"] if (q["conv_id"], e) in session_of]
        if not ev or q["category"] not in cats:
            continue
        base = {"kind": "query", "id": q["qid"], "text": q["question"], "namespace": q["conv_id"], "category": cats[q["category"]]}
        mixed.write(json.dumps(dict(base, gold=ev)) + "\n")
        only.write(json.dumps(dict(base, gold=sorted({session_of[(q["conv_id"], e)] for e in ev}))) + "\n")
