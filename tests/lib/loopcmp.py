#!/usr/bin/env python3
"""loopcmp.py REPORT.json PROGRAM - the rows of `report --structural
--format=json` that concern PROGRAM's own functions (from nm) and where
the structural and the dynamic view do not simply agree, one per line:
  HEADER S_ITER S_INV KIND D_ITER D_ENTRIES   (structural loops)
  dynamic-only FUNCTION HEAD_OFFSET ITERATIONS ENTRIES
  irreducible BLOCKS ENTRY,ENTRY..
and a last line "same N": the loops on which both views agree exactly."""
import json
import subprocess
import sys

nm = subprocess.run(['nm', sys.argv[2]], capture_output=True, text=True).stdout
funcs = {l.split()[-1] for l in nm.splitlines() if l.split()[-2:-1] in (['T'], ['t'])}
d = json.load(open(sys.argv[1]))
same = 0
for l in d['loops']:
    if l['header'].split('+')[0] not in funcs:
        continue
    dy = l['dynamic']
    if dy['match'] == 'same':
        same += 1
        continue
    print(l['header'], l['iterations'], l['invocations'], dy['match'],
          dy['iterations'], dy['entries'])
for l in d['dynamic_only']:
    if l['function'] in funcs:
        print('dynamic-only', l['function'], l['head_offset'], l['iterations'],
              l['entries'])
for l in d['irreducible']:
    if any(e.split('+')[0] in funcs for e in l['entries']):
        print('irreducible', l['blocks'], ','.join(l['entries']))
print('same', same)
