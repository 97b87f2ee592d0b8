import gzip,sys,collections,re
f=sys.argv[1]; targets=sys.argv[2:]
samples=[]; cur=None
for line in gzip.open(f,'rt',errors='replace'):
    if not line.strip():
        if cur is not None: samples.append(cur); cur=None
        continue
    if not line.startswith(('\t',' ')):
        cur=[]; continue
    parts=line.split()
    if len(parts)>=2 and cur is not None:
        sym=re.sub(r'\+0x[0-9a-f]+$','',parts[1]); cur.append(sym)
if cur: samples.append(cur)
n=len(samples); print("samples",n)
for t in targets:
    inc=0; child=collections.Counter(); leaf=collections.Counter()
    for st in samples:
        if t in st:
            inc+=1; i=st.index(t)
            child[st[i-1] if i>0 else '(self)']+=1
            leaf[st[0]]+=1
    print("== %s: %d samples (%.2f%%)"%(t,inc,100*inc/n))
    print("  direct callees:", ", ".join("%s %d"%kv for kv in child.most_common(12)))
    print("  leaves:", ", ".join("%s %d"%kv for kv in leaf.most_common(12)))
