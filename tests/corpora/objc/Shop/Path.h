#import <AppKit/AppKit.h>

/* A class of the project extending one of AppKit's. */
@interface Path : NSBezierPath
- (void)stroke;
@end
