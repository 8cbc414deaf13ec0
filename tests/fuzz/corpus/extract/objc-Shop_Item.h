#import <Foundation/Foundation.h>
#import "Priced.h"

@interface Item : NSObject <Priced>
@property (nonatomic, copy) NSString *name;
- (instancetype)initWithName:(NSString *)name;
- (NSString *)describe;
@end
