# The slice model's fit: the measured (shape, M, slices) times, grouped by
# (source, shape, M), and the costs that pick the fastest most often.
# Run from this folder: python3 fit.py
import re,math,collections,itertools
S=[1,2,3,4,6,8,12,16,24,32]
XT={2:2048,4:2048,8:1024,16:512}
def old(K,N,sms=132):
  bx=math.ceil(N/64); best=1
  for s in S:
    if K//s<256: break
    best=s
    if bx*s>=4*sms: break
  return best
def model_new1(M,K,N,c0=256,cs=224,sms=132):
  bx=math.ceil(N/64); best=None
  for s in S:
    if s>1 and K//s<256: break
    per=math.ceil(K/16/s)*16
    c=math.ceil(bx*s/sms)*(per+c0+cs*math.ceil(per/XT[M]))
    if best is None or c<best[0]: best=(c,s)
  return best[1]
groups=collections.defaultdict(dict)
for f,src in (('sweep/w8split.txt','eval'),('first-model/evals.txt','eval')):
  for l in open(f):
    m=re.match(r'(\d+)x(\d+)x(\d+) MR=\d+ COLS=2 LPC=8 XT=\d+ SPLIT=(\d+) \| ([\d.]+)',l)
    if m: M,K,N,s,t=map(float,m.groups()); groups[(src,int(M),int(K),int(N))][int(s)]=t
lib=collections.defaultdict(list)
for lib_ in ('old','new'):
  for r in (1,2):
    for l in open(f'first-model/lib-{lib_}-{r}.txt'):
      m=re.match(r'\s*(\d+) x (\d+)\s+M (\d+)\s+io \S+ ok\s+([\d.]+) us',l)
      if m: lib[(lib_,int(m[1]),int(m[2]),int(m[3]))].append(float(m[4]))
for (lib_,K,N,M),ts in lib.items():
  s=old(K,N) if lib_=='old' else model_new1(M,K,N)
  g=groups[('lib',M,K,N)]
  g[s]=min(min(ts),g.get(s,1e9))
groups={k:v for k,v in groups.items() if len(v)>=2}
print(len(groups),"groups")
def cost(M,K,N,s,p,sms=132):
  rho,c0,cs,csum=p
  bx=math.ceil(N/64); per=math.ceil(K/16/s)*16; b=math.ceil(bx*s/sms)
  return per*max(rho,b)+b*(c0+cs*math.ceil(per/XT[M]))+csum*(s>1)
def evaluate(p):
  loss=0;hit=0
  for (src,M,K,N),ts in groups.items():
    pick=min(ts,key=lambda s:(cost(M,K,N,s,p),s)); best=min(ts,key=ts.get)
    loss+=ts[pick]/ts[best]-1; hit+=pick==best
  return loss,hit
res=[]
for rho in (1,1.5,2,2.5,3,4):
  for c0 in range(0,1025,128):
    for cs in range(0,513,64):
      for csum in range(0,2049,128):
        l,h=evaluate((rho,c0,cs,csum)); res.append((round(l,3),h,rho,c0,cs,csum))
res.sort(); print(res[:25])
print("fine")
res=[]
for rho in (1.25,1.5,1.75):
  for c0 in range(128,400,32):
    for cs in range(96,300,32):
      for csum in range(128,700,64):
        l,h=evaluate((rho,c0,cs,csum)); res.append((round(l,3),h,rho,c0,cs,csum))
res.sort(); print(res[:12])
p=(1.5,256,192,384)
for (src,M,K,N),ts in sorted(groups.items()):
  pick=min(ts,key=lambda s:(cost(M,K,N,s,p),s)); best=min(ts,key=ts.get)
  if pick!=best: print("miss",src,M,K,N,ts,"pick",pick)
def pick(M,K,N,p=(1.5,256,192,384)):
  bx=math.ceil(N/64); best=None
  for s in S:
    if s>1 and K//s<256: break
    c=cost(M,K,N,s,p)
    if best is None or c<best[0]: best=(c,s)
  return best[1]
print("picks")
for K,N in [(7168, 9216), (7168, 1536), (7168, 1024), (5120, 6144), (5120, 3584),(5120, 3072), (5120, 768),  (5120, 256),  (4608, 7168), (4096, 7168),(3072, 5120), (1536, 6144), (512, 7168),  (384, 5120),(4096,14336),(14336,4096),(1000,1000),(16,33),(65536,1024)]:
  print(K,N,old(K,N),model_new1(16,K,N),[pick(M,K,N) for M in (2,4,8,16)])
