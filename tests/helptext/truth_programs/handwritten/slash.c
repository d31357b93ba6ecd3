#include "common.h"
static void usage(void){ printf(
"slash - copy with modes\n\n"
"Usage: slash [options] SRC DST\n\n"
"Options:\n"
"  -m/--mode MODE     copy mode: link, copy or move\n"
"  -q/--quiet         be quiet\n"
"  -d (--debug)       print debug output\n"
"  -h/--help          show this help\n"); }
int main(int argc,char**argv){ char*m=0; int q=0,d=0; char*pos[8];int np=0;
  for(int i=1;i<argc;i++){ char*a=argv[i];
    if(!strcmp(a,"-h")||!strcmp(a,"--help")){usage();return 0;}
    if(!strcmp(a,"-q")||!strcmp(a,"--quiet")){q=1;continue;}
    if(!strcmp(a,"-d")||!strcmp(a,"--debug")){d=1;continue;}
    if(!strcmp(a,"-m")||!strcmp(a,"--mode")){ if(i+1>=argc){fprintf(stderr,"slash: -m needs MODE\n");return 2;} m=argv[++i]; continue;}
    if(!strncmp(a,"--mode=",7)){m=a+7;continue;}
    if(!strcmp(a,"--")){ for(i++;i<argc;i++) pos[np++]=argv[i]; break; }
    if(a[0]=='-'&&a[1]){fprintf(stderr,"slash: unknown option %s\n",a);return 2;}
    pos[np++]=a; }
  if(np!=2){fprintf(stderr,"slash: need SRC DST, got %d\n",np);return 2;}
  kv_s("mode",m);kv_i("q",q);kv_i("d",d);kv_list("pos",pos,np);kv_end();return 0;}
