/* style 7: help to stderr with exit 1 and a leading version banner; also "--output FILE (-o)" style and [fast|slow] */
#include "common.h"
static void usage(void){ fprintf(stderr,
"cvt version 2.3.0 (build 2024-05-01)\n"
"usage: cvt [options] <input> <output>\n"
"options:\n"
"   --output-format FMT (-f)   output format [png|jpeg|webp] (default: png)\n"
"   --quality Q (-q)           JPEG quality, 1-100 (default: 90)\n"
"   --resize WxH (-r)          resize to WxH pixels\n"
"   --rotate DEG               rotate by DEG degrees, may be negative\n"
"   --speed [fast|slow]        encoder speed\n"
"   --strip (-s)               remove metadata\n"
"   --gamma FLOAT              gamma correction (default: 1.0)\n"
"   --help                     print this message\n"); }
int main(int argc,char**argv){ char*f=0,*q=0,*r=0,*rot=0,*sp=0,*g=0; int s=0; char*pos[16];int np=0;
  if(argc<2){ usage(); return 1; }
  for(int i=1;i<argc;i++){ char*a=argv[i]; char*eq=0; char**dst=0;
    if(!strcmp(a,"--")){ for(i++;i<argc;i++) pos[np++]=argv[i]; break; }
    if(!strcmp(a,"--help")||!strcmp(a,"-h")||!strcmp(a,"-?")){ usage(); return 1; }
    if(!strcmp(a,"--strip")||!strcmp(a,"-s")){s=1;continue;}
    if(a[0]=='-'&&a[1]=='-'&&(eq=strchr(a,'='))) *eq++=0;
    if(!strcmp(a,"--output-format")||!strcmp(a,"-f")) dst=&f; else if(!strcmp(a,"--quality")||!strcmp(a,"-q")) dst=&q;
    else if(!strcmp(a,"--resize")||!strcmp(a,"-r")) dst=&r; else if(!strcmp(a,"--rotate")) dst=&rot; else if(!strcmp(a,"--speed")) dst=&sp; else if(!strcmp(a,"--gamma")) dst=&g;
    else if(a[0]=='-'&&a[1]){ fprintf(stderr,"cvt: unknown option %s\n",a); usage(); return 1; }
    else { pos[np++]=a; continue; }
    char*val=eq?eq:(i+1<argc?argv[++i]:0); if(!val){fprintf(stderr,"cvt: %s needs a value\n",a);return 1;} *dst=val; }
  if(np!=2){ fprintf(stderr,"cvt: need <input> <output>\n"); return 1; }
  kv_s("format",f);kv_s("quality",q);kv_s("resize",r);kv_s("rotate",rot);kv_s("speed",sp);kv_s("gamma",g);kv_i("strip",s);kv_list("pos",pos,np);kv_end();return 0;}
