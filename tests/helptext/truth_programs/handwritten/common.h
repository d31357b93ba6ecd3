#include <stdio.h>
#include <string.h>
#include <stdlib.h>
static int first_kv = 1;
static void jstr(const char *s){ putchar('"'); for(;*s;s++){ unsigned char c=*s; if(c=='"'||c=='\\'){putchar('\\');putchar(c);} else if(c<0x20) printf("\\u%04x",c); else putchar(c);} putchar('"'); }
static void kv_s(const char *k,const char *v){ printf(first_kv?"{":","); first_kv=0; jstr(k); putchar(':'); if(v) jstr(v); else printf("null"); }
static void kv_i(const char *k,long v){ printf(first_kv?"{":","); first_kv=0; jstr(k); printf(":%ld",v); }
static void kv_list(const char *k,char **v,int n){ printf(first_kv?"{":","); first_kv=0; jstr(k); putchar(':'); putchar('['); for(int i=0;i<n;i++){ if(i) putchar(','); jstr(v[i]); } putchar(']'); }
static void kv_end(void){ printf(first_kv?"{}\n":"}\n"); }
